#!/usr/bin/env bash
# halo.sh [--quick] [OUT_DIR]: the halo-exchange benchmark of the
# cartesian-weighted paper (section 7, bench/halo_bench.c) on simulated nodes,
# under Open MPI and MPICH: MPI_Dims_create + MPI_Cart_create against
# MPIX_Cart_create_weighted with equal and with mesh weights. Writes into
# OUT_DIR (default bench/results/halo-<UTC time>):
#   table2.txt   the paper's Table 2 (halo bytes, no MPI) next to its figures
#   dims.txt     the dims each variant picks: the paper's 192 = 8 nodes x 2 x 12
#                (its Table 1) and this run's machine
#   ompi.txt, mpich.txt   the Table 3-like tables of each run
#   halo.csv     every measurement; summary.txt: all of the above
#
# Simulated nodes (docs/mpi.md, "Communicators that follow the hardware"):
# HALO_NODES nodes (default 4) of HALO_RANKS_PER_NODE ranks (default 6), each
# node the machine HALO_TOPOLOGY (default "Package:2 [NUMANode] Core:3 PU:1",
# the paper's 2 x 12-core nodes scaled down) -> 24 ranks on this machine's
# cores, oversubscribed. HALO_LEVELS (default 4,2,3: nodes, packages, cores)
# only feeds the --dims table. HALO_RATIO: mesh ratio (default 1:2:4).
#
#   Open MPI: 7 mesh sizes, 50 repetitions, 5 interleaved trials (median).
#   MPICH busy-polls whole scheduler slices when oversubscribed: 10
#   repetitions, 3 trials. --quick: 4 sizes, 10 repetitions, 1 trial each.
# All "inter-node" messages are shared memory here, and ranks outnumber cores:
# the timings cannot show the paper's gains; the halo bytes (and the bytes
# leaving each simulated node) are what the variants change.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
out=${1:-$root/bench/results/halo-$(date -u +%Y%m%d-%H%M%S)}
build=${OSMP_BUILD_DIR:-$root/build}
nodes=${HALO_NODES:-4}
rpn=${HALO_RANKS_PER_NODE:-6}
topology=${HALO_TOPOLOGY:-Package:2 [NUMANode] Core:3 PU:1}
levels=${HALO_LEVELS:-4,2,3}
ratio=${HALO_RATIO:-1:2:4}
np=$((nodes * rpn))
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$build" > /dev/null
bench=$build/bin
for b in halo_bench_ompi halo_bench_mpich; do
  [ -x "$bench/$b" ] || { echo "halo.sh: $bench/$b was not built (is that MPI installed?)" >&2; exit 1; }
done
mkdir -p "$out"
csv=$out/halo.csv
ncpu=$(nproc)
if [ "$quick" = 1 ]; then
  ompi_args=(-s 4 -r 10 -t 1)
  mpich_args=(-s 4 -r 10 -t 1)
else
  ompi_args=(-s 7 -r 50 -t 5)
  mpich_args=(-s 7 -r 10 -t 3)
fi
export OSMP_SIM_RANKS_PER_NODE=$rpn OSMP_TOPOLOGY=$topology

run() {  # label timeout command...
  local label=$1 limit=$2; shift 2
  echo "  $label, $np processes" >&2
  if ! timeout "$limit" "$@" > "$out/$label.txt" 2> "$out/$label.log"; then
    echo "  ($label: failed or timed out after $limit s; see $out/$label.log)" >&2
    return 0
  fi
}

echo "osmp halo: $(date -u +%FT%TZ), $(git -C "$root" rev-parse --short HEAD), $ncpu CPUs, $nodes simulated nodes" \
     "x $rpn ranks of '$topology', ratio $ratio, results in $out" >&2
"$bench/halo_bench_ompi" --table2 > "$out/table2.txt"
{
  "$bench/halo_bench_ompi" --dims 192 -m 1:2:4 -L 8,2,12
  echo
  "$bench/halo_bench_ompi" --dims "$np" -m "$ratio" -L "$levels"
} > "$out/dims.txt" 2>&1 || echo "  (--dims failed; see $out/dims.txt)" >&2

ompi=(mpirun.openmpi --allow-run-as-root -np "$np" -x OSMP_SIM_RANKS_PER_NODE -x OSMP_TOPOLOGY)
mpich=(mpirun.mpich -np "$np" -genv OSMP_SIM_RANKS_PER_NODE "$rpn" -genv OSMP_TOPOLOGY "$topology")
if [ "$np" -gt "$ncpu" ]; then
  ompi+=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
else
  ompi+=(--bind-to core)
  mpich+=(-bind-to core)
fi
run ompi 900 "${ompi[@]}" "$bench/halo_bench_ompi" -m "$ratio" -c "$csv" -l ompi "${ompi_args[@]}"
run mpich 1200 "${mpich[@]}" "$bench/halo_bench_mpich" -m "$ratio" -c "$csv" -l mpich "${mpich_args[@]}"

{
  echo "# osmp halo: $(date -u +%FT%TZ), $(git -C "$root" rev-parse --short HEAD)" \
       "(working tree $(git -C "$root" status --porcelain | wc -l | tr -d ' ') changed paths), $ncpu CPUs, $(uname -r)"
  echo "# $nodes simulated nodes x $rpn ranks, OSMP_TOPOLOGY='$topology', ratio $ratio"
  for f in table2 dims ompi mpich; do
    echo
    echo "## $f"
    cat "$out/$f.txt" 2> /dev/null || echo "(missing)"
  done
} > "$out/summary.txt"
cat "$out/summary.txt"
