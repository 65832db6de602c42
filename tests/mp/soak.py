#!/usr/bin/env python3
"""The crash-safety soak (CTest label soak, not in the default run):
OSMP_SOAK_RUNS (default 1000) jobs, each hit once at a random moment: a rank
or osmprun SIGKILLed, osmprun sent SIGINT or SIGTERM, a rank killed at a
random kill point, or a job without a launcher losing a rank. After each, the
job must end (10 s at most: else a hang) and leave nothing (names in the shm
directory, rendezvous sockets, processes). Time to end is counted from the
hit; a rank killed before a job without a launcher has its rank 0 can only
be noticed when OSMP_BOOTSTRAP_TIMEOUT (8 s here) expires.

usage: soak.py BIN_DIR
prints: soak: runs N, leaks L, hangs H, max time to end T s (median M s)
"""
import os
import random
import signal
import statistics
import subprocess
import sys
import time

from mp_support import osmp_names, osmp_sockets as sockets, tagged

BIN = sys.argv[1]
OSMPRUN, WORKER, COLL = (os.path.join(BIN, x) for x in ("osmprun", "mp_worker", "mp_coll"))
POINTS = ["bootstrap.claimed", "bootstrap.attached", "team.settings", "team.created", "team.shared", "team.attached",
          "team.ready", "reconfigure.begin", "reconfigure.built", "finalize"]
HANG_S = 10


def pids_of(tag, n, timeout=5):
    end = time.time() + timeout
    while time.time() < end:
        found = [p for p in tagged(tag) if os.path.basename(os.readlink(f"/proc/{p}/exe")) != "osmprun"]
        if len(found) >= n:
            return found
        time.sleep(0.005)
    return tagged(tag)


def scenario(i):
    """Starts one job; returns (processes to wait for, tag, what to do to it, description)."""
    tag = f"soak-{os.getpid()}-{i}"
    n = random.choice([2, 3, 4, 6])
    kind = random.choice(["rank", "launcher_kill", "launcher_int", "launcher_term", "point", "env_rank"])
    prog = random.choice([[COLL, "loop"], [COLL, "lifecycle"], [WORKER, "ring", "0"]])
    if kind == "env_rank":
        job = "%016x" % random.getrandbits(64)
        procs = [subprocess.Popen(prog + [tag], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env=dict(os.environ, OSMP_JOB_ID=job, OSMP_RANK=str(r), OSMP_SIZE=str(n),
                                           OSMP_BOOTSTRAP_TIMEOUT="8"))
                 for r in range(n)]
        victim = random.choice(procs)
        def kill_victim():
            victim.send_signal(signal.SIGKILL)
            return time.time()

        return procs, tag, kill_victim, "no launcher: a rank killed"
    extra = []
    if kind == "point":  # lifecycle passes every point; the kill comes by itself
        prog = [COLL, "lifecycle"]
        extra = ["-x", f"OSMP_TEST_KILL={random.choice(POINTS)}:{random.randrange(n)}"]
    p = subprocess.Popen([OSMPRUN, "-n", str(n), "--oversubscribe", "--grace", "1", *extra] + prog + [tag],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def hit():
        """Returns when it struck (the time to end is counted from there)."""
        if kind == "rank":
            ranks = pids_of(tag, n, timeout=1)
            if ranks:
                os.kill(random.choice(ranks), signal.SIGKILL)
        elif kind == "launcher_kill":
            p.send_signal(signal.SIGKILL)
        elif kind == "launcher_int":
            p.send_signal(signal.SIGINT)
        elif kind == "launcher_term":
            p.send_signal(signal.SIGTERM)
        return None if kind == "point" else time.time()  # a kill point strikes when it is reached

    return [p], tag, hit, {"rank": "osmprun: a rank killed", "launcher_kill": "osmprun SIGKILLed",
                           "launcher_int": "osmprun SIGINTed", "launcher_term": "osmprun SIGTERMed",
                           "point": "osmprun: a rank killed at a kill point"}[kind]


def main():
    runs = int(os.environ.get("OSMP_SOAK_RUNS", "1000"))
    names0, socks0 = osmp_names(), sockets()
    leaks, hangs, ends, by_kind = [], [], [], {}
    for i in range(runs):
        procs, tag, hit, what = scenario(i)
        time.sleep(random.uniform(0, 0.3))
        struck = hit()
        t0 = struck or time.time()
        hung = False
        for p in procs:
            try:
                p.wait(timeout=max(0.1, HANG_S - (time.time() - t0)))
            except subprocess.TimeoutExpired:
                hung = True
        while tagged(tag) and time.time() - t0 < HANG_S:
            time.sleep(0.005)
        took = time.time() - t0
        left = tagged(tag)
        if hung or left:
            hangs.append(f"run {i} ({what}): still running after {HANG_S} s: {left}")
            for q in left:
                os.kill(q, signal.SIGKILL)
            for p in procs:
                p.kill()
                p.wait()
        if struck:
            ends.append(took)
        by_kind.setdefault(what, []).append(took if struck else None)
        time.sleep(0.05)  # nothing may be left once the job is over
        names, socks = osmp_names() - names0, sockets() - socks0
        if names or socks:
            leaks.append(f"run {i} ({what}): names {sorted(names)} sockets {sorted(socks)}")
            names0, socks0 = names0 | names, socks0 | socks
        if (i + 1) % 100 == 0:
            print(f"  {i + 1} runs, max time to end {max(ends):.2f} s", flush=True)
    print(f"soak: runs {runs}, leaks {len(leaks)}, hangs {len(hangs)}, max time to end {max(ends):.2f} s "
          f"(median {statistics.median(ends):.2f} s)")
    for what, times in sorted(by_kind.items()):
        t = [x for x in times if x is not None]
        timing = f", time to end max {max(t):.2f} s, median {statistics.median(t):.2f} s" if t else ""
        print(f"  {what}: {len(times)} runs{timing}")
    for x in leaks + hangs:
        print("  " + x)
    sys.exit(1 if leaks or hangs else 0)


if __name__ == "__main__":
    main()
