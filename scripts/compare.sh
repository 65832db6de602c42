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
#   Every library runs twice, in turn and then in reverse order; the report
#   keeps each one's better run.
#   The hardware limit, measured in the same run before and after the
#   sweeps: the cache-line round trip between 2 processes (bench_shm
#   pingpong, one shared line, median); the report sets the barrier against it.
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

# One library's run: lib NAME NP bench-args...
lib() {
  local name=$1 np=$2; shift 2
  local args=("$@") common=(-c "$csv")
  local bind_ompi=(--bind-to core) bind_mpich=(-bind-to core) bind_osmp=()
  local over=0
  if [ "$np" -gt "$ncpu" ]; then
    over=1
    bind_ompi=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
    bind_mpich=()
    bind_osmp=(--oversubscribe --bind-to none)
  fi
  case $name in
    osmp) run osmp "$np" 600 "$bench/osmprun" -n "$np" "${bind_osmp[@]}" "$bench/osmp-bench" "${common[@]}" -l osmp "${args[@]}" ;;
    ompi_tuned) run ompi_tuned "$np" 600 "${ompi[@]}" -np "$np" "${bind_ompi[@]}" "$bench/coll_bench_ompi" "${common[@]}" -l ompi_tuned "${args[@]}" ;;
    ompi_han) run ompi_han "$np" 600 "${ompi[@]}" -np "$np" "${bind_ompi[@]}" --mca coll_han_priority 100 "$bench/coll_bench_ompi" "${common[@]}" -l ompi_han "${args[@]}" ;;
    ompi_sm) run ompi_sm "$np" 600 "${ompi[@]}" -np "$np" "${bind_ompi[@]}" --mca coll_sm_priority 100 "$bench/coll_bench_ompi" "${common[@]}" -l ompi_sm "${args[@]}" ;;
    mpich)
      # MPICH busy-polls whole scheduler slices when oversubscribed: few iterations.
      if [ "$over" = 1 ]; then args+=(-i 20 -x 2); fi
      run mpich "$np" 900 mpirun.mpich -np "$np" "${bind_mpich[@]}" "$bench/coll_bench_mpich" "${common[@]}" -l mpich "${args[@]}" ;;
    # osmp through MPI: the coll component inside Open MPI, the PMPI interposer under MPICH.
    ompi_osmp) run ompi_osmp "$np" 600 "${ompi[@]}" -np "$np" "${bind_ompi[@]}" "${component[@]}" "$bench/coll_bench_ompi" "${common[@]}" -l ompi_osmp "${args[@]}" ;;
    mpich_osmp) run mpich_osmp "$np" 600 mpirun.mpich -np "$np" "${bind_mpich[@]}" -genv LD_PRELOAD "$lib/libosmp_pmpi_mpich.so" "$bench/coll_bench_mpich" "${common[@]}" -l mpich_osmp "${args[@]}" ;;
  esac
}

# Every library twice, in turn and then in reverse order; the report keeps
# each library's best of the two (compare_report.py).
sweep() {  # np bench-args...
  local np=$1; shift
  local libs=(osmp ompi_tuned ompi_han ompi_sm mpich ompi_osmp mpich_osmp)
  if [ "$np" -gt "$ncpu" ]; then libs=(osmp ompi_tuned ompi_sm mpich ompi_osmp mpich_osmp); fi
  for name in "${libs[@]}"; do lib "$name" "$np" "$@"; done
  for ((i = ${#libs[@]} - 1; i >= 0; i--)); do lib "${libs[$i]}" "$np" "$@"; done
}

echo "osmp compare: $(date -u +%FT%TZ), $(git -C "$root" rev-parse --short HEAD), $ncpu CPUs, results in $out" >&2
limit() {  # appends "round_trip_ns <median>" to limits.txt
  "$bench/osmprun" -n 2 "$bench/bench_shm" pingpong 200000 2>&1 |
    awk '/raw std::atomic, one shared line/ {print "round_trip_ns", $(NF-1)}' >> "$out/limits.txt"
}
: > "$out/limits.txt"
limit
if [ "$quick" = 1 ]; then
  sweep 2 -m 4:1048576 -i 2000
else
  sweep 2 -m 4:4194304
  for np in 4 8; do
    sweep "$np" -o barrier,bcast,reduce,allreduce,gather -m 8:8 -s loop -i 2000
    sweep "$np" -o bcast,reduce,allreduce,gather -m 65536:65536 -s loop -i 500
  done
fi
limit
python3 "$root/scripts/compare_report.py" "$csv" "$out"
