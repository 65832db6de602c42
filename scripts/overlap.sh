#!/usr/bin/env bash
# overlap.sh [OUT_DIR]: how much of a non-blocking allreduce (4 KiB .. 4 MiB
# per rank) overlaps with computation, as OSU's osu_iallreduce measures it
# (bench/coll_bench.c -s overlap: the pure time of {start; wait}, then
# {start; compute that long; wait}; overlap = 100 * (1 - (overall - compute)
# / pure), no test call while computing), for osmp, Open MPI's libnbc
# (coll/libnbc: tuned has no non-blocking collectives), MPICH, and osmp
# through each MPI (Open MPI with coll/osmp, MPICH with the interposer), in
# one run, 2 processes bound one per core. Every library runs twice, in turn
# then in reverse order; the table keeps each one's run with the better pure
# time. Writes overlap.csv into OUT_DIR (default bench/results/<UTC time>).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/bench/results/overlap-$(date -u +%Y%m%d-%H%M%S)}
build=$root/build
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$build" > /dev/null
mkdir -p "$out"
csv=$out/overlap.csv
echo "library,op,procs,bytes,pure_us,overall_us,compute_us,overlap_pct,iters" > "$csv"
bench=$build/bin
lib=$build/lib
ompi=(mpirun.openmpi --allow-run-as-root -np 2 --bind-to core)
component=(--mca mca_base_component_path "$(ompi_info --path pkglibdir --parsable | cut -d: -f3):$lib/openmpi")
args=(-o allreduce -s overlap -m 4096:4194304 -i 1000 -c "$csv")

one() {  # label command...
  local label=$1; shift
  echo "  $label" >&2
  if ! timeout 600 "$@" -l "$label" >> "$out/$label.log" 2>&1; then
    echo "  ($label: failed or timed out; see $out/$label.log)" >&2
  fi
}
run_lib() {
  case $1 in
    osmp) one osmp "$bench/osmprun" -n 2 "$bench/osmp-bench" "${args[@]}" ;;
    ompi_libnbc) one ompi_libnbc "${ompi[@]}" --mca coll_osmp_priority -1 "$bench/coll_bench_ompi" "${args[@]}" ;;
    mpich) one mpich mpirun.mpich -np 2 -bind-to core "$bench/coll_bench_mpich" "${args[@]}" ;;
    ompi_osmp) one ompi_osmp "${ompi[@]}" "${component[@]}" "$bench/coll_bench_ompi" "${args[@]}" ;;
    mpich_osmp) one mpich_osmp mpirun.mpich -np 2 -bind-to core -genv LD_PRELOAD "$lib/libosmp_pmpi_mpich.so" \
                  "$bench/coll_bench_mpich" "${args[@]}" ;;
  esac
}
libs=(osmp ompi_libnbc mpich ompi_osmp mpich_osmp)
echo "osmp overlap: $(date -u +%FT%TZ), $(git -C "$root" rev-parse --short HEAD), results in $out" >&2
for l in "${libs[@]}"; do run_lib "$l"; done
for ((i = ${#libs[@]} - 1; i >= 0; i--)); do run_lib "${libs[$i]}"; done
python3 - "$csv" <<'PY'
import collections, csv, sys
best = collections.defaultdict(dict)  # bytes -> library -> row with the better pure time
for r in csv.DictReader(open(sys.argv[1])):
    b, lib = int(r["bytes"]), r["library"]
    if lib not in best[b] or float(r["pure_us"]) < float(best[b][lib]["pure_us"]):
        best[b][lib] = r
libs = ["osmp", "ompi_libnbc", "mpich", "ompi_osmp", "mpich_osmp"]
print("\n| size | " + " | ".join(f"{l} pure us / overlap %" for l in libs) + " |")
print("|---:|" + "---:|" * len(libs))
for b in sorted(best):
    cells = []
    for l in libs:
        r = best[b].get(l)
        cells.append(f"{float(r['pure_us']):.2f} / {float(r['overlap_pct']):.0f}" if r else "")
    size = f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"
    print(f"| {size} | " + " | ".join(cells) + " |")
PY
