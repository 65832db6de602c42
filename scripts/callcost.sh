#!/usr/bin/env bash
# callcost.sh [OPS] [BYTES]: instructions per call of osmp's small
# collectives, counted by valgrind (callgrind) on each of 2 ranks: osmp on
# its own (osmprun), through Open MPI's coll/osmp component and through the
# PMPI interposer under MPICH. The count covers the timed loop of
# bench/coll_bench.c (after its warm-up) inside the called function, less
# the time spent waiting for the other rank (Waiter::wait_slow): the
# software cost of a call on this rank, the same on every host. A VM whose
# cache-line round trip moves between 60 and 460 ns from one session to the
# next makes timings comparable only within one run; these counts compare
# across runs and commits. Rank 0 is the root of the rooted operations.
# OPS: comma-separated, as coll_bench names them (default barrier,bcast,
# scatter,gather,reduce,allreduce; also allgather, reduce_scatter); BYTES
# per rank (default 4). Beside them, the same count of Open MPI's own
# collectives, coll/sm (coll_sm_priority 100) and tuned (its default): the
# whole MPI call, whose waits spin inside it (nothing to subtract), so
# those are upper bounds. About a minute. Exits non-zero if a run failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ops=${1:-barrier,bcast,scatter,gather,reduce,allreduce}
bytes=${2:-4}
build=$root/build
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$build" > /dev/null
bench=$build/bin
lib=$build/lib
component=(--mca mca_base_component_path "$(ompi_info --path pkglibdir --parsable | cut -d: -f3):$lib/openmpi")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Per call, each rank's count of the timed loop (coll_bench.c dumps it after
# the warm-up and the loop: cg.RANK.1), inside the toggled function, less
# the waits: "rank0 rank1".
iters=2000
failed=0  # set in the loop below: per_call runs in a subshell
per_call() {
  rm -f "$tmp"/cg.*
  if ! "$@" -i $iters -x 20 > "$tmp/log" 2>&1 || [ ! -s "$tmp/cg.0.1" ] || [ ! -s "$tmp/cg.1.1" ]; then
    echo "callcost.sh: this run failed (its output below): $*" >&2
    tail -20 "$tmp/log" >&2
    echo "FAILED"
    return
  fi
  local line="" f
  for f in "$tmp"/cg.0.1 "$tmp"/cg.1.1; do
    line+=$(callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null | awk -v n=$iters '
      /PROGRAM TOTALS/ { gsub(",", "", $1); t = $1 }
      /osmp::Waiter::wait_slow/ && !seen { gsub(",", "", $1); w = $1; seen = 1 }
      END { printf "%d ", (t - w) / n }')
  done
  echo "$line"
}

# valgrind with each rank's file named by its rank, as its launcher sets it.
vg() { vg_args=(valgrind --tool=callgrind "--callgrind-out-file=$tmp/cg.%q{$1}"); }
args=(-m "$bytes:$bytes")
printf "%-10s %15s %15s %15s %15s %15s\n" "# op" "osmp" "ompi+osmp" "mpich+osmp" "ompi sm" "ompi tuned"
for op in ${ops//,/ }; do
  # The function each call enters: coll_bench's reduce_scatter is MPI's
  # Reduce_scatter_block and osmp's reduce_scatter_block.
  fn=$op
  [ "$op" = reduce_scatter ] && fn=reduce_scatter_block
  vg OSMP_RANK
  a=$(per_call timeout 600 "$bench/osmprun" -n 2 "${vg_args[@]}" --toggle-collect="osmp_$fn" \
    "$bench/osmp-bench" -o "$op" "${args[@]}")
  vg OMPI_COMM_WORLD_RANK
  b=$(per_call timeout 600 mpirun.openmpi --allow-run-as-root -np 2 --bind-to core "${component[@]}" \
    "${vg_args[@]}" --toggle-collect="PMPI_${fn^}" "$bench/coll_bench_ompi" -o "$op" "${args[@]}")
  vg PMI_RANK
  c=$(per_call timeout 600 mpirun.mpich -np 2 -bind-to core -genv LD_PRELOAD "$lib/libosmp_pmpi_mpich.so" \
    "${vg_args[@]}" --toggle-collect="MPI_${fn^}" "$bench/coll_bench_mpich" -o "$op" "${args[@]}")
  vg OMPI_COMM_WORLD_RANK
  d=$(per_call timeout 600 mpirun.openmpi --allow-run-as-root -np 2 --bind-to core --mca coll_sm_priority 100 \
    "${vg_args[@]}" --toggle-collect="PMPI_${fn^}" "$bench/coll_bench_ompi" -o "$op" "${args[@]}")
  e=$(per_call timeout 600 mpirun.openmpi --allow-run-as-root -np 2 --bind-to core \
    "${vg_args[@]}" --toggle-collect="PMPI_${fn^}" "$bench/coll_bench_ompi" -o "$op" "${args[@]}")
  for v in a b c d e; do [ "${!v}" != FAILED ] || failed=1; done
  # The bench calls a barrier before every call: for barrier, two calls
  # per iteration.
  if [ "$op" = barrier ]; then
    for v in a b c d e; do
      [ "${!v}" = FAILED ] || printf -v "$v" "%s" "$(echo "${!v}" | awk '{ printf "%d %d", $1 / 2, $2 / 2 }')"
    done
  fi
  printf "%-10s %15s %15s %15s %15s %15s\n" "$op" "$a" "$b" "$c" "$d" "$e"
done
exit $failed
