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
#
# With OSMP_OMPI5_PREFIX (an Open MPI 5.0 installation; the build gets the
# same variable: coll_bench_ompi5 and its coll/osmp, docs/install.md) every
# sweep also runs that Open MPI in the same run: ompi5_tuned, ompi5_han,
# ompi5_sm, ompi5_acoll (where it has coll/acoll) and ompi5_osmp (through its
# component); the report adds osmp against the best 5.0 configuration.
#
# compare.sh --ops LIST ...: only these operations (comma list, as
# osmp-bench -o names them) in every sweep above, e.g. --ops alltoall,scan.
#
# compare.sh --heap [OUT_DIR]: large messages (64 KiB .. 4 MiB, 2 processes
# bound, every operation) with the buffers in osmp's shared heap (osmp-bench
# -H: osmp_alloc; osmp through MPI: MPI_Alloc_mem, which the interposer serves
# from the heap) beside plain buffers, against every MPI with malloc and with
# MPI_Alloc_mem (each MPI's better one counts); the one-copy limit (bench_shm
# memcpy) before and after. Each library four times (two sweeps, each in turn
# and reversed); the report keeps each one's best.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quick=0 heap=0 only=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1; shift ;;
    --heap) heap=1; shift ;;
    --ops) only=${2:?--ops needs a comma list of operations}; shift 2 ;;
    *) break ;;
  esac
done
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
ompi5_libs=()
if [ -n "${OSMP_OMPI5_PREFIX:-}" ]; then
  p5=$OSMP_OMPI5_PREFIX
  if [ ! -d "$p5" ]; then p5=$(dirname "$(dirname "$p5")"); fi  # its mpicc
  ompi5=("$p5/bin/mpirun" --allow-run-as-root)
  component5=(--mca mca_base_component_path "$("$p5/bin/ompi_info" --path pkglibdir --parsable | cut -d: -f3):$lib/openmpi5")
  ompi5_libs=(ompi5_tuned ompi5_han ompi5_sm)
  if "$p5/bin/ompi_info" | grep -q "MCA coll: acoll"; then ompi5_libs+=(ompi5_acoll); fi
  ompi5_libs+=(ompi5_osmp)
fi

run() {  # label np timeout command...
  local label=$1 np=$2 limit=$3; shift 3
  echo "  $label, $np processes" >&2
  if ! timeout "$limit" "$@" >> "$out/$label-$np.log" 2>&1; then
    echo "  ($label, $np processes: failed or timed out after $limit s; see $out/$label-$np.log)" >&2
  fi
}

# One library's run: lib NAME NP bench-args... (NAME_heap: with -H, the
# library's allocator for shared memory)
lib() {
  local name=$1 np=$2; shift 2
  if [[ $name == *_heap ]]; then
    name=${name%_heap}
    lib_as "${name}_heap" "$name" "$np" -H "$@"
  else
    lib_as "$name" "$name" "$np" "$@"
  fi
}
lib_as() {
  local label=$1 name=$2 np=$3; shift 3
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
    osmp) run "$label" "$np" 600 "$bench/osmprun" -n "$np" "${bind_osmp[@]}" "$bench/osmp-bench" "${common[@]}" -l "$label" "${args[@]}" ;;
    ompi_tuned) run "$label" "$np" 600 "${ompi[@]}" -np "$np" "${bind_ompi[@]}" "$bench/coll_bench_ompi" "${common[@]}" -l "$label" "${args[@]}" ;;
    ompi_han) run "$label" "$np" 600 "${ompi[@]}" -np "$np" "${bind_ompi[@]}" --mca coll_han_priority 100 "$bench/coll_bench_ompi" "${common[@]}" -l "$label" "${args[@]}" ;;
    ompi_sm) run "$label" "$np" 600 "${ompi[@]}" -np "$np" "${bind_ompi[@]}" --mca coll_sm_priority 100 "$bench/coll_bench_ompi" "${common[@]}" -l "$label" "${args[@]}" ;;
    mpich)
      # MPICH busy-polls whole scheduler slices when oversubscribed: few iterations.
      if [ "$over" = 1 ]; then args+=(-i 20 -x 2); fi
      run "$label" "$np" 900 mpirun.mpich -np "$np" "${bind_mpich[@]}" "$bench/coll_bench_mpich" "${common[@]}" -l "$label" "${args[@]}" ;;
    # osmp through MPI: the coll component inside Open MPI, the PMPI interposer under MPICH.
    # Open MPI's framework gives a coll component no say in MPI_Alloc_mem: with
    # -H, osmp inside Open MPI is the interposer (libosmp_pmpi.so).
    ompi_osmp)
      local via=("${component[@]}")
      if [[ $label == *_heap ]]; then via=(-x LD_PRELOAD="$lib/libosmp_pmpi.so"); fi
      run "$label" "$np" 600 "${ompi[@]}" -np "$np" "${bind_ompi[@]}" "${via[@]}" "$bench/coll_bench_ompi" "${common[@]}" -l "$label" "${args[@]}" ;;
    ompi5_tuned) run "$label" "$np" 600 "${ompi5[@]}" -np "$np" "${bind_ompi[@]}" "$bench/coll_bench_ompi5" "${common[@]}" -l "$label" "${args[@]}" ;;
    ompi5_han | ompi5_sm | ompi5_acoll)
      run "$label" "$np" 600 "${ompi5[@]}" -np "$np" "${bind_ompi[@]}" --mca "coll_${name#ompi5_}_priority" 100 "$bench/coll_bench_ompi5" "${common[@]}" -l "$label" "${args[@]}" ;;
    ompi5_osmp) run "$label" "$np" 600 "${ompi5[@]}" -np "$np" "${bind_ompi[@]}" "${component5[@]}" "$bench/coll_bench_ompi5" "${common[@]}" -l "$label" "${args[@]}" ;;
    mpich_osmp) run "$label" "$np" 600 mpirun.mpich -np "$np" "${bind_mpich[@]}" -genv LD_PRELOAD "$lib/libosmp_pmpi_mpich.so" "$bench/coll_bench_mpich" "${common[@]}" -l "$label" "${args[@]}" ;;
  esac
}

# The operations of LIST that --ops keeps ("all": every one; without --ops, LIST).
ops_of() {
  if [ -z "$only" ]; then echo "$1"; return; fi
  if [ "$1" = all ]; then echo "$only"; return; fi
  local kept=() op
  for op in ${1//,/ }; do
    if [[ ",$only," == *",$op,"* ]]; then kept+=("$op"); fi
  done
  (IFS=,; echo "${kept[*]}")
}

# Every library twice, in turn and then in reverse order; the report keeps
# each library's best of the two (compare_report.py).
sweep() {  # np [-o OPS] bench-args...
  local np=$1; shift
  local ops=all
  if [ "${1:-}" = -o ]; then ops=$2; shift 2; fi
  ops=$(ops_of "$ops")
  if [ -z "$ops" ]; then return; fi
  set -- -o "$ops" "$@"
  local libs=(osmp ompi_tuned ompi_han ompi_sm mpich ompi_osmp mpich_osmp)
  if [ "$np" -gt "$ncpu" ]; then libs=(osmp ompi_tuned ompi_sm mpich ompi_osmp mpich_osmp); fi
  local l5
  for l5 in "${ompi5_libs[@]}"; do  # han as on 4.1: bound runs only
    if [ "$l5" != ompi5_han ] || [ "$np" -le "$ncpu" ]; then libs+=("$l5"); fi
  done
  if [ "$heap" = 1 ]; then
    libs=(osmp osmp_heap ompi_tuned ompi_tuned_heap ompi_han ompi_han_heap ompi_sm ompi_sm_heap mpich mpich_heap
          ompi_osmp_heap mpich_osmp_heap)
  fi
  for name in "${libs[@]}"; do lib "$name" "$np" "$@"; done
  for ((i = ${#libs[@]} - 1; i >= 0; i--)); do lib "${libs[$i]}" "$np" "$@"; done
}

echo "osmp compare: $(date -u +%FT%TZ), $(git -C "$root" rev-parse --short HEAD), $ncpu CPUs, results in $out" >&2
limit() {  # appends "round_trip_ns <median>" to limits.txt
  "$bench/osmprun" -n 2 "$bench/bench_shm" pingpong 200000 2>&1 |
    awk '/raw std::atomic, one shared line/ {print "round_trip_ns", $(NF-1)}' >> "$out/limits.txt"
}
copy_limit() {  # appends "memcpy_us <bytes> <us per copy>" per size to limits.txt
  "$bench/osmprun" -n 2 "$bench/bench_shm" memcpy 2>&1 | awk '/^[0-9]/ {print "memcpy_us", $1, $2}' >> "$out/limits.txt"
}
: > "$out/limits.txt"
limit
if [ "$heap" = 1 ]; then
  copy_limit
  sweep 2 -o bcast,reduce,allreduce,gather,allgather,scatter,reduce_scatter,alltoall -m 65536:4194304
  sweep 2 -o bcast,reduce,allreduce,gather,allgather,scatter,reduce_scatter,alltoall -m 65536:4194304
  copy_limit
elif [ "$quick" = 1 ]; then
  sweep 2 -m 4:1048576 -i 2000
else
  sweep 2 -m 4:4194304
  for np in 4 8; do
    sweep "$np" -o barrier,bcast,reduce,allreduce,gather,alltoall,scan,exscan,gatherv,allgatherv,scatterv,alltoallv,reduce_scatter_v -m 8:8 -s loop -i 2000
    sweep "$np" -o bcast,reduce,allreduce,gather,alltoall,scan,exscan,gatherv,allgatherv,scatterv,alltoallv,reduce_scatter_v -m 65536:65536 -s loop -i 500
  done
fi
limit
python3 "$root/scripts/compare_report.py" "$csv" "$out"
