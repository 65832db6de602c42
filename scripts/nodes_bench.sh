#!/usr/bin/env bash
# nodes_bench.sh [--iters N] [OUT_DIR]: osmp across simulated nodes
# (OSMP_SIM_RANKS_PER_NODE=2: 2 and 4 nodes of 2 processes, so 4 and 8
# processes on this machine's cores, oversubscribed, unbound, loop timing
# {op; barrier}), 8-byte bcast and allreduce, through the interposer under
# Open MPI and MPICH, in one run:
#
#   lazy      OSMP_CHECK=lazy (the default): the leaders run only the MPI's
#             own collective among them
#   strict    OSMP_CHECK=strict: the leaders agree first (one MPI_Allreduce
#             of 256 bytes), as every call across nodes did before
#   leaders   the MPI alone on as many processes as there are nodes (what
#             the leaders' collective costs by itself)
#   node      osmp alone on one node's 2 processes (osmprun): its node part
#             (bcast: a bcast; allreduce: a reduce and a bcast)
#   mpi       the MPI alone on all the processes
#
# Three rounds, each configuration in turn; the report keeps each one's
# best and prints lazy against leaders + node and against strict.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
iters=2000
if [ "${1:-}" = --iters ]; then iters=${2:?--iters needs a count}; shift 2; fi
out=${1:-$root/bench/results/nodes-$(date -u +%Y%m%d-%H%M%S)}
build=$root/build
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$build" > /dev/null
mkdir -p "$out"
csv=$out/nodes.csv
echo "library,op,procs,bytes,avg_us,min_us,max_us,iters,mode" > "$csv"
bin=$build/bin lib=$build/lib ncpu=$(nproc)
args=(-o bcast,allreduce -m 8:8 -s loop -c "$csv")

run() {  # label command...
  local label=$1; shift
  if ! timeout 600 "$@" >> "$out/$label.log" 2>&1; then echo "  ($label failed or timed out: $out/$label.log)" >&2; fi
}
ompi() {  # label np env-args...
  local label=$1 np=$2; shift 2
  local bind=(--bind-to core)
  if [ "$np" -gt "$ncpu" ]; then bind=(--oversubscribe --bind-to none --mca mpi_yield_when_idle 1); fi
  run "$label" mpirun.openmpi --allow-run-as-root -np "$np" "${bind[@]}" "$@" "$bin/coll_bench_ompi" "${args[@]}" \
    -l "$label" -i "$iters"
}
mpich() {  # label np env-args...
  local label=$1 np=$2; shift 2
  # MPICH busy-polls whole scheduler slices when oversubscribed: few iterations.
  local it=(-i "$iters") bind=(-bind-to core)
  if [ "$np" -gt "$ncpu" ]; then it=(-i 50 -x 5) bind=(); fi
  run "$label" mpirun.mpich -np "$np" "${bind[@]}" "$@" "$bin/coll_bench_mpich" "${args[@]}" -l "$label" "${it[@]}"
}

echo "osmp nodes_bench: $(date -u +%FT%TZ), $(git -C "$root" rev-parse --short HEAD), $ncpu CPUs, results in $out" >&2
for round in 1 2 3; do
  echo "  round $round" >&2
  run node "$bin/osmprun" -n 2 "$bin/osmp-bench" -o bcast,reduce -m 8:8 -s loop -c "$csv" -l node -i "$iters"
  for nodes in 2 4; do
    np=$((2 * nodes))
    pre=(-x LD_PRELOAD="$lib/libosmp_pmpi.so" -x OSMP_SIM_RANKS_PER_NODE=2)
    ompi ompi_mpi "$np"
    ompi ompi_lazy "$np" "${pre[@]}"
    ompi ompi_strict "$np" "${pre[@]}" -x OSMP_CHECK=strict
    ompi ompi_leaders "$nodes"
    pre=(-genv LD_PRELOAD "$lib/libosmp_pmpi_mpich.so" -genv OSMP_SIM_RANKS_PER_NODE 2)
    mpich mpich_mpi "$np"
    mpich mpich_lazy "$np" "${pre[@]}"
    mpich mpich_strict "$np" "${pre[@]}" -genv OSMP_CHECK strict
    mpich mpich_leaders "$nodes"
  done
done

python3 - "$csv" <<'EOF'
import csv, sys
best = {}
for r in csv.DictReader(open(sys.argv[1])):
    k = (r["library"], r["op"], int(r["procs"]))
    best[k] = min(best.get(k, 1e18), float(r["avg_us"]))
node = lambda op: best.get(("node", op, 2))
print("8 B, loop timing, best of 3, us; nodes of 2 processes (osmp's node part: %s)" %
      ", ".join(f"{op} {best.get(('node', op, 2), float('nan')):.2f}" for op in ("bcast", "reduce")))
print("| MPI | nodes | op | lazy | strict | leaders' MPI | node part | leaders + node | MPI alone | lazy / (leaders + node) | lazy / strict |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for mpi in ("ompi", "mpich"):
    for nodes in (2, 4):
        for op in ("bcast", "allreduce"):
            g = lambda cfg, np: best.get((f"{mpi}_{cfg}", op, np))
            lazy, strict, alone = g("lazy", 2 * nodes), g("strict", 2 * nodes), g("mpi", 2 * nodes)
            leaders = g("leaders", nodes)
            part = node("bcast") if op == "bcast" else (node("reduce") or 0) + (node("bcast") or 0)
            if None in (lazy, strict, alone, leaders, part):
                print(f"| {mpi} | {nodes} | {op} | (missing) |")
                continue
            s = leaders + part
            print(f"| {mpi} | {nodes} | {op} | {lazy:.2f} | {strict:.2f} | {leaders:.2f} | {part:.2f} | {s:.2f} | "
                  f"{alone:.2f} | {lazy / s:.2f} | {lazy / strict:.2f} |")
EOF
