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
# OPS: comma-separated (default barrier,bcast,scatter,gather,reduce,
# allreduce); BYTES per rank (default 4). About 30 s.
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
per_call() {
  rm -f "$tmp"/cg.*
  "$@" -i $iters -x 20 > /dev/null 2>&1 || true
  local line="" f
  for f in "$tmp"/cg.0.1 "$tmp"/cg.1.1; do
    line+=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null | awk -v n=$iters '
      /PROGRAM TOTALS/ { gsub(",", "", $1); t = $1 }
      /osmp::Waiter::wait_slow/ && !seen { gsub(",", "", $1); w = $1; seen = 1 }
      END { printf "%d ", (t - w) / n }')
  done
  echo "$line"
}

# Each rank's file is named by its rank, as its launcher sets it.
vg() { echo valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.%q{$1}"; }
args=(-m "$bytes:$bytes")
printf "%-10s %15s %15s %15s\n" "# op" "osmp" "ompi+osmp" "mpich+osmp"
for op in ${ops//,/ }; do
  Op=$(python3 -c "import sys; print('_'.join(w.capitalize() if i == 0 else w for i, w in enumerate(sys.argv[1].split('_'))))" "$op")
  a=$(per_call timeout 600 "$bench/osmprun" -n 2 $(vg OSMP_RANK) --toggle-collect="osmp_$op" \
    "$bench/osmp-bench" -o "$op" "${args[@]}")
  b=$(per_call timeout 600 mpirun.openmpi --allow-run-as-root -np 2 --bind-to core "${component[@]}" \
    $(vg OMPI_COMM_WORLD_RANK) --toggle-collect="PMPI_$Op" "$bench/coll_bench_ompi" -o "$op" "${args[@]}")
  c=$(per_call timeout 600 mpirun.mpich -np 2 -bind-to core -genv LD_PRELOAD "$lib/libosmp_pmpi_mpich.so" \
    $(vg PMI_RANK) --toggle-collect="MPI_$Op" "$bench/coll_bench_mpich" -o "$op" "${args[@]}")
  # The bench calls a barrier before every call: for barrier, two calls
  # per iteration.
  if [ "$op" = barrier ]; then
    for v in a b c; do printf -v "$v" "%s" "$(echo "${!v}" | awk '{ printf "%d %d", $1 / 2, $2 / 2 }')"; done
  fi
  printf "%-10s %15s %15s %15s\n" "$op" "$a" "$b" "$c"
done
