#!/usr/bin/env bash
# compare.sh [--quick] [OUT_DIR]: osmp against Open MPI (default tuned,
# coll_han_priority 100, coll_sm_priority 100) and MPICH, in one run, with the
# same benchmark (bench/coll_bench.c built against each), process count and
# binding, and osmp through each MPI (Open MPI with the coll/osmp component,
# MPICH with the PMPI interposer). Prints the latency ratios osmp / best MPI
# and the cost of the MPI path per call, writes every number as
# CSV and a PNG plot per process count into OUT_DIR (default
# bench/results/<UTC time>).
#
#   2 processes, one per core, bound: every operation, 4 B .. 4 MiB, OSU timing.
#   4 and 8 processes on this machine's cores (oversubscribed, unbound): the
#   loop timing {op; barrier} that stays honest when ranks share cores, fewer
#   sizes and iterations (MPICH takes milliseconds per call there).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
out=${1:-$root/bench/results/$(date -u +%Y%m%d-%H%M%S)}
build=$root/build
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$build" > /dev/null
mkdir -p "$out"
csv=$out/latency.csv
echo "library,op,procs,bytes,avg_us,min_us,max_us,iters,mode" > "$csv"
ncpu=$(nproc)
ompi=(mpirun.openmpi --allow-run-as-root)
bench=$build/bin
lib=$build/lib
component=(--mca mca_base_component_path "$(ompi_info --path pkglibdir --parsable | cut -d: -f3):$lib/openmpi")

run() {  # label np timeout command...
  local label=$1 np=$2 limit=$3; shift 3
  echo "  $label, $np processes" >&2
  if ! timeout "$limit" "$@" >> "$out/$label-$np.log" 2>&1; then
    echo "  ($label, $np processes: failed or timed out after $limit s; see $out/$label-$np.log)" >&2
  fi
}

sweep() {  # np binding-args... -- bench-args...
  local np=$1; shift
  local args=("$@")
  local common=(-c "$csv")
  if [ "$np" -le "$ncpu" ]; then
    run osmp "$np" 600 "$bench/osmprun" -n "$np" "$bench/osmp-bench" "${common[@]}" -l osmp "${args[@]}"
    run ompi_tuned "$np" 600 "${ompi[@]}" -np "$np" --bind-to core "$bench/coll_bench_ompi" "${common[@]}" -l ompi_tuned "${args[@]}"
    run ompi_han "$np" 600 "${ompi[@]}" -np "$np" --bind-to core --mca coll_han_priority 100 "$bench/coll_bench_ompi" "${common[@]}" -l ompi_han "${args[@]}"
    run ompi_sm "$np" 600 "${ompi[@]}" -np "$np" --bind-to core --mca coll_sm_priority 100 "$bench/coll_bench_ompi" "${common[@]}" -l ompi_sm "${args[@]}"
    run mpich "$np" 600 mpirun.mpich -np "$np" -bind-to core "$bench/coll_bench_mpich" "${common[@]}" -l mpich "${args[@]}"
    # osmp through MPI: the coll component inside Open MPI, the PMPI interposer under MPICH.
    run ompi_osmp "$np" 600 "${ompi[@]}" -np "$np" --bind-to core "${component[@]}" "$bench/coll_bench_ompi" "${common[@]}" -l ompi_osmp "${args[@]}"
    run mpich_osmp "$np" 600 mpirun.mpich -np "$np" -bind-to core -genv LD_PRELOAD "$lib/libosmp_pmpi_mpich.so" "$bench/coll_bench_mpich" "${common[@]}" -l mpich_osmp "${args[@]}"
  else
    local y=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
    run osmp "$np" 600 "$bench/osmprun" -n "$np" --oversubscribe --bind-to none "$bench/osmp-bench" "${common[@]}" -l osmp "${args[@]}"
    run ompi_tuned "$np" 600 "${ompi[@]}" -np "$np" "${y[@]}" "$bench/coll_bench_ompi" "${common[@]}" -l ompi_tuned "${args[@]}"
    run ompi_sm "$np" 600 "${ompi[@]}" -np "$np" "${y[@]}" --mca coll_sm_priority 100 "$bench/coll_bench_ompi" "${common[@]}" -l ompi_sm "${args[@]}"
    # MPICH busy-polls whole scheduler slices when oversubscribed: few iterations.
    local few=("${args[@]}")
    few+=(-i 20 -x 2)
    run mpich "$np" 900 mpirun.mpich -np "$np" "$bench/coll_bench_mpich" "${common[@]}" -l mpich "${few[@]}"
    run ompi_osmp "$np" 600 "${ompi[@]}" -np "$np" "${y[@]}" "${component[@]}" "$bench/coll_bench_ompi" "${common[@]}" -l ompi_osmp "${args[@]}"
    run mpich_osmp "$np" 600 mpirun.mpich -np "$np" -genv LD_PRELOAD "$lib/libosmp_pmpi_mpich.so" "$bench/coll_bench_mpich" "${common[@]}" -l mpich_osmp "${args[@]}"
  fi
}

echo "osmp compare: $(date -u +%FT%TZ), $(git -C "$root" rev-parse --short HEAD), $ncpu CPUs, results in $out" >&2
if [ "$quick" = 1 ]; then
  sweep 2 -m 4:1048576 -i 2000
else
  sweep 2 -m 4:4194304
  for np in 4 8; do
    sweep "$np" -o barrier,bcast,reduce,allreduce,gather -m 8:8 -s loop -i 2000
    sweep "$np" -o bcast,reduce,allreduce,gather -m 65536:65536 -s loop -i 500
  done
fi
python3 "$root/scripts/compare_report.py" "$csv" "$out"
