#!/usr/bin/env python3
"""compare_report.py CSV OUT_DIR: the table of osmp / best-MPI latency ratios
(and which MPI was best), a summary CSV, and one PNG per process count
(latency against size, log-log, a line per library) drawn with gnuplot."""
import collections
import csv
import os
import shutil
import subprocess
import sys

path, out = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path)))
data = collections.defaultdict(dict)  # (op, procs, bytes) -> {library: avg}
for r in rows:
    # compare.sh runs every library twice, in turn and in reverse order: the
    # best of the two, for every library alike, so that whatever disturbs one
    # moment of the run (the hypervisor, the build just before) favours no one.
    key, lib, us = (r["op"], int(r["procs"]), int(r["bytes"])), r["library"], float(r["avg_us"])
    data[key][lib] = min(us, data[key].get(lib, us))

OPS = ["barrier", "bcast", "reduce", "allreduce", "gather", "allgather", "scatter", "reduce_scatter", "alltoall", "scan",
       "exscan", "gatherv", "allgatherv", "scatterv", "alltoallv", "reduce_scatter_v"]
SHOW = {0, 4, 8, 64, 1024, 8192, 65536, 1048576, 4194304}


def size(b):
    return "-" if b == 0 else (f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB" if b >= 1024 else f"{b} B")


summary = []
overhead = {"ompi_osmp": [], "mpich_osmp": []}
for procs in sorted({k[1] for k in data}):
    print(f"\n### {procs} processes (latency in us; ratio = osmp / best MPI, < 1 is osmp faster; "
          f"ompi+osmp: Open MPI with coll/osmp, mpich+osmp: MPICH with the interposer)\n")
    print("| op | size | osmp | best MPI | ratio | ompi tuned | ompi han | ompi sm | mpich | ompi+osmp | mpich+osmp |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for op in OPS:
        for b in sorted(x[2] for x in data if x[0] == op and x[1] == procs):
            libs = data[(op, procs, b)]
            mpis = {k: v for k, v in libs.items() if "osmp" not in k}
            for k in ("ompi_osmp", "mpich_osmp"):
                if k in libs and "osmp" in libs:
                    overhead[k].append(libs[k] - libs["osmp"])
            if "osmp" not in libs or not mpis:
                continue
            best = min(mpis, key=mpis.get)
            ratio = libs["osmp"] / mpis[best]
            summary.append([op, procs, b, libs["osmp"], best, mpis[best], ratio])
            if b not in SHOW:
                continue
            cell = lambda k: f"{libs[k]:.2f}" if k in libs else ""
            print(f"| {op} | {size(b)} | {libs['osmp']:.2f} | {mpis[best]:.2f} ({best}) | {ratio:.2f} | "
                  f"{cell('ompi_tuned')} | {cell('ompi_han')} | {cell('ompi_sm')} | {cell('mpich')} | "
                  f"{cell('ompi_osmp')} | {cell('mpich_osmp')} |")

with open(os.path.join(out, "ratios.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["op", "procs", "bytes", "osmp_us", "best_mpi", "best_mpi_us", "ratio"])
    w.writerows(summary)

worse = [s for s in summary if s[6] > 1.0]
print(f"\n{len(summary)} points, osmp faster or equal in {len(summary) - len(worse)}; "
      f"geometric mean ratio {__import__('math').exp(sum(__import__('math').log(s[6]) for s in summary) / max(1, len(summary))):.2f}")

# Open MPI 5.0 in the same run (compare.sh with OSMP_OMPI5_PREFIX): osmp
# against the best 5.0 configuration, at every point where it is at or below
# the best 4.1 one (the target: there too), and each component against its
# own Open MPI's best.
OMPI41 = ("ompi_tuned", "ompi_han", "ompi_sm")
five_points = [(k, libs) for k, libs in sorted(data.items())
               if "osmp" in libs and any(l.startswith("ompi5_") and "osmp" not in l for l in libs)]
if five_points:
    print("\n### Open MPI 5.0 beside 4.1 (latency in us; 5.0 best of tuned, han, sm, acoll where present; "
          "ratio = osmp / best)\n")
    print("| procs | op | size | osmp | best 4.1 | ratio | best 5.0 | ratio | ompi+osmp / best 4.1 | ompi5+osmp / best 5.0 |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    held, missed, comp41, comp5 = 0, [], [], []
    for (op, procs, b), libs in five_points:
        b41 = {k: libs[k] for k in OMPI41 if k in libs}
        b5 = {k: v for k, v in libs.items() if k.startswith("ompi5_") and "osmp" not in k}
        if not b41 or not b5:
            continue
        k41, k5 = min(b41, key=b41.get), min(b5, key=b5.get)
        o = libs["osmp"]
        c41 = libs["ompi_osmp"] / b41[k41] if "ompi_osmp" in libs else None
        c5 = libs["ompi5_osmp"] / b5[k5] if "ompi5_osmp" in libs else None
        if c41 is not None:
            comp41.append(c41)
        if c5 is not None:
            comp5.append(c5)
        if o <= b41[k41]:
            if o <= b5[k5]:
                held += 1
            else:
                missed.append(f"{op} {size(b)} at {procs} ({o:.2f} us vs {b5[k5]:.2f} {k5})")
        if b in SHOW:
            fmt = lambda x: f"{x:.2f}" if x is not None else ""
            print(f"| {procs} | {op} | {size(b)} | {o:.2f} | {b41[k41]:.2f} ({k41}) | {o / b41[k41]:.2f} | "
                  f"{b5[k5]:.2f} ({k5}) | {o / b5[k5]:.2f} | {fmt(c41)} | {fmt(c5)} |")
    print(f"\nosmp at or below the best 4.1 configuration: {held + len(missed)} points; at or below the best 5.0 "
          f"one there too: {held}; not: {', '.join(missed) or 'none'}")
    gm = lambda xs: __import__("math").exp(sum(__import__("math").log(x) for x in xs) / len(xs)) if xs else float("nan")
    print(f"through the component: ompi+osmp / best 4.1 geometric mean {gm(comp41):.2f}; "
          f"ompi5+osmp / best 5.0 {gm(comp5):.2f}")

limits = os.path.join(out, "limits.txt")
if os.path.exists(limits):
    rtt = [float(l.split()[1]) for l in open(limits) if l.startswith("round_trip_ns")]
    if rtt:
        print(f"cache-line round trip (bench_shm, before / after the sweeps): "
              f"{' / '.join(f'{x:.0f}' for x in rtt)} ns")
        b = data.get(("barrier", 2, 0), {})
        if "osmp" in b:
            print(f"osmp barrier, 2 processes: {b['osmp'] * 1000:.0f} ns = "
                  f"{b['osmp'] * 1000 / max(rtt):.2f}-{b['osmp'] * 1000 / min(rtt):.2f}x the round trip")

# The heap run (compare.sh --heap): osmp with its buffers in the shared heap
# (osmp_heap; through MPI: MPI_Alloc_mem served from it) against the best MPI
# with malloc or MPI_Alloc_mem, and bcast against one memcpy of its size.
copy = collections.defaultdict(list)
if os.path.exists(limits):
    for l in open(limits):
        if l.startswith("memcpy_us"):
            _, b, us = l.split()
            copy[int(b)].append(float(us))
heap_points = [(k, libs) for k, libs in sorted(data.items()) if "osmp_heap" in libs]
if heap_points:
    print("\n### buffers from the shared heap, 2 processes (latency in us; ratio = osmp / best MPI with malloc "
          "or MPI_Alloc_mem; memcpy: one copy of the size, bench_shm, best of before/after)\n")
    print("| op | size | osmp heap | ratio | osmp plain | ratio | best MPI | ompi+osmp heap | mpich+osmp heap | memcpy | bcast heap / memcpy |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    for (op, procs, b), libs in heap_points:
        mpis = {k: v for k, v in libs.items() if "osmp" not in k}
        if not mpis:
            continue
        best = min(mpis, key=mpis.get)
        h, p = libs["osmp_heap"], libs.get("osmp")
        mc = min(copy[b]) if copy.get(b) else None
        cell = lambda k: f"{libs[k]:.2f}" if k in libs else ""
        pr = p / mpis[best] if p else None
        cr = h / mc if mc and op == "bcast" else None
        rows.append((op, b, h / mpis[best], pr, cr))
        fmt = lambda x: f"{x:.2f}" if x is not None else ""
        print(f"| {op} | {size(b)} | {h:.2f} | {h / mpis[best]:.2f} | {cell('osmp')} | {fmt(pr)} | "
              f"{mpis[best]:.2f} ({best}) | {cell('ompi_osmp_heap')} | {cell('mpich_osmp_heap')} | {fmt(mc)} | {fmt(cr)} |")
    big = [r for r in rows if r[1] in (1 << 20, 4 << 20) and r[0] in ("bcast", "reduce", "allreduce", "gather",
                                                                        "allgather")]
    a2a = [r for r in rows if r[0] == "alltoall" and (64 << 10) <= r[1] <= (1 << 20)]
    if a2a:
        print(f"alltoall 64 KiB - 1 MiB per pair: heap ratio {min(r[2] for r in a2a):.2f}-{max(r[2] for r in a2a):.2f}, "
              f"plain {min(r[3] for r in a2a if r[3]):.2f}-{max(r[3] for r in a2a if r[3]):.2f} (target <= 0.7)")
    print(f"\nheap, 1 and 4 MiB (bcast, reduce, allreduce, gather, allgather): ratio "
          f"{min(r[2] for r in big):.2f}-{max(r[2] for r in big):.2f} (target <= 0.6); "
          f"{sum(r[2] <= 0.6 for r in big)} of {len(big)} points met" if big else "")
    plain = [r[3] for r in rows if r[3] is not None]
    if plain:
        print(f"plain buffers, 64 KiB and up: ratio {min(plain):.2f}-{max(plain):.2f} (target <= 0.85); "
              f"{sum(x <= 0.85 for x in plain)} of {len(plain)} points met")
    bc = [r[4] for r in rows if r[0] == "bcast" and r[1] == 1 << 20 and r[4] is not None]
    if bc:
        print(f"bcast 1 MiB from the heap: {bc[0]:.2f}x one 1 MiB memcpy (target <= 1.3)")
    # No size slower than twice the size, and no step up in cost per byte
    # from one size to the next beyond memcpy's own (the caches') by 25%.
    for label in ("osmp", "osmp_heap"):
        slower, steeper = [], []
        for (op, procs, b), libs in heap_points:
            nxt = data.get((op, procs, 2 * b), {})
            if label not in libs or label not in nxt:
                continue
            t, t2 = libs[label], nxt[label]
            if t > t2:
                slower.append(f"{op} {size(b)} ({t:.2f} us > {t2:.2f} at {size(2 * b)})")
            grow = t2 / (2 * t)
            mgrow = min(copy[2 * b]) / (2 * min(copy[b])) if copy.get(b) and copy.get(2 * b) else 1.0
            if grow > 1.25 * max(1.0, mgrow):
                steeper.append(f"{op} {size(b)}->{size(2 * b)} (x{grow:.2f} per byte, memcpy x{mgrow:.2f})")
        print(f"{label}: slower than at twice the size: {', '.join(slower) or 'none'}; "
              f"per byte dearer at twice the size beyond memcpy's step: {', '.join(steeper) or 'none'}")

for k, v in overhead.items():
    if v:
        v = sorted(v)
        print(f"MPI path cost ({k} - osmp), median over {len(v)} points: {v[len(v) // 2]:+.2f} us per call")

if not shutil.which("gnuplot"):
    sys.exit(0)
for procs in sorted({k[1] for k in data}):
    ops = [op for op in OPS if any(k[0] == op and k[1] == procs and k[2] > 0 for k in data)]
    if not ops:
        continue
    libs = sorted({l for k, v in data.items() if k[1] == procs for l in v})
    dat = os.path.join(out, f"plot-{procs}.dat")
    with open(dat, "w") as f:
        for op in ops:
            for lib in libs:
                f.write(f"# {op} {lib}\n")
                for b in sorted(k[2] for k in data if k[0] == op and k[1] == procs and k[2] > 0):
                    if lib in data[(op, procs, b)]:
                        f.write(f"{b} {data[(op, procs, b)][lib]}\n")
                f.write("\n\n")
    cols = 4 if len(ops) > 2 else len(ops)
    rowsn = (len(ops) + cols - 1) // cols
    png = os.path.join(out, f"latency-{procs}procs.png")
    script = [f"set terminal pngcairo size {420 * cols},{340 * rowsn} font ',9' noenhanced", f"set output '{png}'",
              "set logscale xy", "set format x '%.0s%cB'", "set xlabel 'bytes per rank'", "set ylabel 'us'",
              "set key left top", f"set multiplot layout {rowsn},{cols} title 'osmp vs MPI, {procs} processes'"]
    for i, op in enumerate(ops):
        plots = []
        for j, lib in enumerate(libs):
            idx = i * len(libs) + j
            plots.append(f"'{dat}' index {idx} with linespoints lw {3 if lib == 'osmp' else 1} title '{lib}'")
        script += [f"set title '{op}'", "plot " + ", ".join(plots)]
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=False)
    print(f"plot: {png}")
