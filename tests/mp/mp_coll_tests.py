#!/usr/bin/env python3
"""Collectives in real processes under osmprun (CTest label mp).

usage: mp_coll_tests.py CASE OSMPRUN MP_COLL
"""
import os
import random
import re
import signal
import subprocess
import sys
import time

OSMPRUN, COLL = sys.argv[2], sys.argv[3]
SHM = os.environ.get("OSMP_SHM_DIR") or "/dev/shm"

# The configurations of the issue: this machine, Rome with 16 processes by
# core and scattered, Cascade Lake with virtual degrees 1, 2, 4, 7.
CONFIGS = [
    ("here_2", ["-n", "2"]),
    ("here_3", ["-n", "3", "--oversubscribe"]),
    ("here_5", ["-n", "5", "--oversubscribe"]),
    ("here_8", ["-n", "8", "--oversubscribe"]),
    ("rome_16_core", ["-n", "16", "--oversubscribe", "--topology", "rome"]),
    ("rome_16_scatter", ["-n", "16", "--oversubscribe", "--topology", "rome", "--map-by", "scatter"]),
    ("cascadelake_16_degree1", ["-n", "16", "--oversubscribe", "--topology", "cascadelake", "--vh", "Package:1"]),
    ("cascadelake_16_degree2", ["-n", "16", "--oversubscribe", "--topology", "cascadelake", "--vh", "Package:2"]),
    ("cascadelake_16_degree4", ["-n", "16", "--oversubscribe", "--topology", "cascadelake", "--vh", "Package:4"]),
    ("cascadelake_16_degree7", ["-n", "16", "--oversubscribe", "--topology", "cascadelake", "--vh", "Package:7"]),
]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, timeout=550, env=None):
    t0 = time.time()
    p = subprocess.run([OSMPRUN, "--timeout", str(timeout - 10)] + args, capture_output=True, text=True,
                       timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def expect_ok(what, n, rc, out, err):
    if rc != 0:
        errors = [l for l in out.splitlines() if "error" in l][:5]
        fail(f"{what}: exit {rc}\n" + "\n".join(errors) + "\n" + err[-2000:])
    for r in range(n):
        if f"rank {r} ok" not in out:
            fail(f"{what}: rank {r} did not finish")
    for job in re.findall(r"^job ([0-9a-f]{16})$", out, re.M):
        left = [x for x in os.listdir(SHM) if job in x]
        if left:
            fail(f"{what}: left {left}")


def nprocs(args):
    return int(args[args.index("-n") + 1])


# The default run's matrix: one shape of each kind (matrix_long, label long,
# runs the others).
MATRIX = ["here_2", "here_5", "rome_16_scatter", "cascadelake_16_degree2"]


def case_matrix(long=False):
    for name, args in CONFIGS:
        if (name in MATRIX) == long:
            continue
        rc, out, err, dt = run(args + [COLL, "matrix"])
        expect_ok(name, nprocs(args), rc, out, err)
        print(f"{name}: matrix passed in {dt:.1f} s")


def case_matrix_long():
    case_matrix(long=True)


def case_large():
    for name, args in [CONFIGS[1], CONFIGS[5], CONFIGS[9]]:
        rc, out, err, dt = run(args + [COLL, "large"], timeout=880)
        expect_ok(name, nprocs(args), rc, out, err)
        print(f"{name}: 1 MiB cases passed in {dt:.1f} s")


def case_cma():
    """The single-copy paths through process_vm_readv / process_vm_writev
    between processes (bcast: the root writes part of every receiver's
    buffer; gather: the senders write into the root's; allgather and scatter
    read): the 1 MiB cases with staging off and CMA from 64 KiB (OSMP_CMA=1:
    whether it pays on this host or not), so that plain buffers take them."""
    env = dict(os.environ, OSMP_STAGE="0", OSMP_CMA="1", OSMP_CMA_MIN="64K")
    for name, args in [CONFIGS[0], CONFIGS[1], CONFIGS[3]]:
        rc, out, err, dt = run(args + [COLL, "large"], timeout=880, env=env)
        expect_ok(name, nprocs(args), rc, out, err)
        print(f"{name}: 1 MiB cases through CMA passed in {dt:.1f} s")


def case_random():
    """Thousands of mixed collectives back to back, seeded, 8 processes on 2 cores."""
    for seed in (1, 2):
        rc, out, err, dt = run(["-n", "8", "--oversubscribe", COLL, "random", str(seed), "2500"])
        expect_ok(f"random seed {seed}", 8, rc, out, err)
        print(f"seed {seed}: 2500 random collectives on 8 processes in {dt:.1f} s")
    rc, out, err, dt = run(["-n", "8", "--oversubscribe", "--topology", "rome", "--map-by", "scatter", "--vh",
                            "auto", COLL, "random", "3", "1500"])
    expect_ok("random on rome", 8, rc, out, err)


def case_reconfigure():
    """Degree changes in the middle of long random runs, oversubscribed."""
    runs = [
        (["-n", "8", "--oversubscribe"], "1", "1000", ";?2;?3;auto;Machine:2;Machine:4"),
        (["-n", "16", "--oversubscribe", "--topology", "cascadelake"], "2", "800",
         "Package:4;Package:2;Package:7;;?3;auto"),
        (["-n", "11", "--oversubscribe", "--topology", "rome", "--map-by", "scatter"], "3", "800",
         ";NUMANode:2;Package:3;?2;auto"),
    ]
    for args, seed, count, specs in runs:
        rc, out, err, dt = run(args + [COLL, "reconfigure", seed, count, specs])
        expect_ok(f"reconfigure {args}", nprocs(args), rc, out, err)
        changes = re.findall(r"^rank 0: (\d+) changes", out, re.M)
        print(f"{' '.join(args)}: {count} collectives, {changes[0] if changes else '?'} changes in {dt:.1f} s")


def case_determinism():
    sums = set()
    for args in (["-n", "4", "--oversubscribe"], ["-n", "4", "--oversubscribe"]):
        rc, out, err, _ = run(args + [COLL, "determinism"])
        expect_ok("determinism", 4, rc, out, err)
        sums.update(re.findall(r"^checksum (\d+)$", out, re.M))
    if len(sums) != 1:
        fail(f"allreduce bits differ between runs: {sums}")


def case_mismatch():
    """Rank ODD passes count 8, the others 16: every rank names rank ODD and both values."""
    for n, odd, rest in ((3, 0, "ranks 1-2"), (3, 1, "ranks 0,2"), (4, 3, "ranks 0-2"), (5, 2, "ranks 0-1,3-4")):
        rc, out, err, _ = run(["-n", str(n), "--oversubscribe", COLL, "mismatch", str(odd)])
        expect_ok(f"mismatch -n {n} odd {odd}", n, rc, out, err)
        want = f"allreduce: ranks disagree on the count: rank {odd} passed 8, {rest} passed 16"
        for r in range(n):
            if f"rank {r} message: {want}\n" not in out:
                fail(f"-n {n}, odd rank {odd}: rank {r} did not say '{want}':\n{out}")


def case_killed_mid_collective(mode="loop", runs=5, names=None):
    """SIGKILL of a random rank mid-run: every survivor's error names the victim (`names(victim, pid)`: a
    regex of how, else "rank VICTIM"), nothing is left behind."""
    random.seed(os.getpid())
    for i in range(runs):
        n = random.randint(3, 6)
        p = subprocess.Popen([OSMPRUN, "-n", str(n), "--oversubscribe", COLL, mode], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        pids, head = {}, ""
        while len(pids) < n:
            line = p.stdout.readline()
            if not line:
                fail("ranks did not start")
            head += line
            m = re.match(r"pid (\d+) (\d+)", line)
            if m:
                pids[int(m.group(1))] = int(m.group(2))
        time.sleep(random.uniform(0.1, 0.6))
        victim = random.randrange(n)
        os.kill(pids[victim], signal.SIGKILL)
        out, err = p.communicate(timeout=60)
        out = head + out
        if p.returncode == 0:
            fail("osmprun exited 0 after a kill")
        for r in range(n):
            if r == victim:
                continue
            m = re.search(rf"^rank {r}: error: (.*)$", out, re.M)
            named = re.search(names(victim, pids[victim]), m.group(1)) if m and names else m and (
                f"rank {victim}" in m.group(1))
            if not named:
                fail(f"rank {r} did not report rank {victim}'s death: {m.group(1) if m else out}")
        job = re.findall(r"^job ([0-9a-f]{16})$", out, re.M)[0]
        if [x for x in os.listdir(SHM) if job in x]:
            fail("segments left behind")


def case_heap():
    for name, args in [CONFIGS[0], CONFIGS[1], CONFIGS[5]]:
        rc, out, err, dt = run(args + [COLL, "heap"])
        expect_ok(name, nprocs(args), rc, out, err)
        print(f"{name}: heap matrix passed in {dt:.1f} s")


def shm_free():
    st = os.statvfs(SHM)
    return st.f_bavail * st.f_frsize


def case_killed_mid_heap():
    """SIGKILL of a rank while every rank runs single-copy calls on 1 MiB heap
    buffers: the survivors name the dead rank, and the shared-memory directory
    gets every page back (heaps have no names: its free space tells)."""
    before = shm_free()
    case_killed_mid_collective("heaploop", 4)
    time.sleep(0.5)
    after = shm_free()
    if after < before - (1 << 20):
        fail(f"{(before - after) >> 10} KiB of {SHM} still in use after the killed jobs")


def case_nbmatrix():
    for name, args in CONFIGS[:4]:
        rc, out, err, dt = run(args + [COLL, "nbmatrix"])
        expect_ok(name, nprocs(args), rc, out, err)
        print(f"{name}: matrix through non-blocking calls passed in {dt:.1f} s")


def case_killed_mid_nonblocking():
    """SIGKILL of a rank while every rank has non-blocking calls pending."""
    case_killed_mid_collective("nbloop", 5)


def case_split():
    """Sub-teams (Team::split, dup) of several shapes, alive together, beside the parent's calls."""
    for args in (["-n", "4", "--oversubscribe"], ["-n", "7", "--oversubscribe"],
                 ["-n", "8", "--oversubscribe", "--topology", "rome", "--map-by", "scatter"]):
        rc, out, err, dt = run(args + [COLL, "split"])
        expect_ok(f"split {args}", nprocs(args), rc, out, err)
        cost = "; ".join(re.findall(r"^(a (?:dup|split in two) takes \d+ us)$", out, re.M))
        print(f"{' '.join(args)}: split shapes passed in {dt:.1f} s ({cost})")


def case_killed_mid_split():
    """SIGKILL of a rank while sub-teams are made, used and dropped: every survivor names the victim's death
    (its rank in the parent, its rank in the two-color sub-team, split(rank % 2, rank), or its pid),
    nothing is left behind."""
    case_killed_mid_collective(
        "splitloop", 5, lambda victim, pid: rf"rank ({victim}|{victim // 2})( \(pid \d+\))? died|pid {pid}\b")


def case_killed_mid_reconfigure():
    """SIGKILL of a rank while the team keeps rebuilding its tree."""
    case_killed_mid_collective("vhloop", 6)


if __name__ == "__main__":
    globals()["case_" + sys.argv[1]]()
    print("ok")
