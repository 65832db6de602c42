#!/usr/bin/env bash
# comm_bench.sh [-n COMMS]: what a new communicator costs (bench/comm_bench.c:
# MPI_Comm_dup of the world or MPI_Comm_split into two colors, one 8-byte
# MPI_Allreduce on it, MPI_Comm_free; ms per communicator, slowest rank,
# best of 3; "alive": COMMS dups alive at once, each used twice, then all
# freed, one run), at 2 (bound), 4 and 8 processes, in one run:
#
#   ompi           Open MPI alone (tuned)
#   ompi+pmpi      Open MPI with the osmp interposer
#   ompi+coll      Open MPI with the coll/osmp component
#   mpich          MPICH alone
#   mpich+pmpi     MPICH with the osmp interposer
#
# and each osmp route against its MPI alone. Where it is 4 or 8 processes
# on 2 cores every figure is oversubscribed (MPICH busy-polls).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
comms=100
if [ "${1:-}" = -n ]; then comms=${2:?-n needs a count}; fi
build=$root/build
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$build" > /dev/null
bin=$build/bin lib=$build/lib
component=(--mca mca_base_component_path "$(ompi_info --path pkglibdir --parsable | cut -d: -f3):$lib/openmpi")
ms() {  # command...: the figure comm_bench prints, or "failed"
  local v
  v=$(timeout 600 "$@" 2> /dev/null | tail -1) && [ -n "$v" ] && echo "$v" || echo failed
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else print "-" }'; }
printf "%-6s %3s %9s %9s %9s %9s %9s   %9s %9s %9s\n" "# op" np ompi ompi+pmpi ompi+coll mpich mpich+pmpi \
  "pmpi/ompi" "coll/ompi" "pmpi/mpich"
for op in dup split alive; do
  for np in 2 4 8; do
    bind=(--bind-to core) mbind=(-bind-to core)
    [ "$np" -gt "$(nproc)" ] && bind=(--oversubscribe --bind-to none) mbind=()
    a=(-o "$op" -n "$comms")
    [ "$op" = alive ] && a=(-o dup --alive -n "$comms" -r 1)
    o=$(ms mpirun.openmpi --allow-run-as-root -np "$np" "${bind[@]}" "$bin/comm_bench_ompi" "${a[@]}")
    op_=$(ms mpirun.openmpi --allow-run-as-root -np "$np" "${bind[@]}" -x LD_PRELOAD="$lib/libosmp_pmpi.so" \
      "$bin/comm_bench_ompi" "${a[@]}")
    oc=$(ms mpirun.openmpi --allow-run-as-root -np "$np" "${bind[@]}" "${component[@]}" "$bin/comm_bench_ompi" "${a[@]}")
    m=$(ms mpirun.mpich -np "$np" "${mbind[@]}" "$bin/comm_bench_mpich" "${a[@]}")
    mp=$(ms mpirun.mpich -np "$np" "${mbind[@]}" -genv LD_PRELOAD "$lib/libosmp_pmpi_mpich.so" \
      "$bin/comm_bench_mpich" "${a[@]}")
    printf "%-6s %3s %9s %9s %9s %9s %9s   %9s %9s %9s\n" "$op" "$np" "$o" "$op_" "$oc" "$m" "$mp" \
      "$(ratio "$op_" "$o")" "$(ratio "$oc" "$o")" "$(ratio "$mp" "$m")"
  done
done
