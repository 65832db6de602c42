#!/usr/bin/env python3
"""Multi-process tests: real processes started by osmprun (CTest label mp).

usage: mp_tests.py CASE OSMPRUN MP_WORKER
"""
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

from mp_support import NotStarted, alive, pid_lines

OSMPRUN, WORKER = sys.argv[2], sys.argv[3]
SHM = os.environ.get("OSMP_SHM_DIR") or "/dev/shm"
UID = os.getuid()


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, env=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    t0 = time.time()
    p = subprocess.run(args, capture_output=True, text=True, env=e, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def job_ids(text):
    return re.findall(r"^job ([0-9a-f]{16})$", text, re.M)


def leftovers(job, shm=SHM):
    prefix = f"osmp-{UID}-{job}-"
    return [n for n in os.listdir(shm) if n.startswith(prefix)]


def expect_clean(out, shm=SHM):
    for job in job_ids(out):
        left = leftovers(job, shm)
        if left:
            fail(f"job {job} left {left} in {shm}")


def expect_ok(rc, out, err, n, what):
    if rc != 0:
        fail(f"{what}: exit {rc}\nstdout:\n{out}\nstderr:\n{err}")
    for r in range(n):
        if f"rank {r} ok" not in out:
            fail(f"{what}: rank {r} did not finish\n{out}\n{err}")
    expect_clean(out)


def start(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)


# ---------------------------------------------------------------------------

def ring(policy, n):
    rounds = (10 if n > 8 else 30) if policy == "spin" and n > 2 else 2000
    rc, out, err, dt = run([OSMPRUN, "-n", str(n), "--oversubscribe", "--wait", policy,
                            WORKER, "ring", str(rounds)])
    expect_ok(rc, out, err, n, f"ring {policy} n={n}")
    print(f"ring {policy:5s} n={n:2d}: {rounds} rounds in {dt:.2f} s")


def case_handoff():
    """Token ring among 2..8 processes under each wait policy, oversubscribed
    (handoff_long: 16)."""
    for policy in ["auto", "futex", "yield", "spin"]:
        for n in [2, 3, 5, 8]:
            ring(policy, n)
    rc, out, err, _ = run([OSMPRUN, "-n", "5", "--oversubscribe", "--bind-to", "none", WORKER, "ring", "500"])
    expect_ok(rc, out, err, 5, "ring unbound")


def case_handoff_long():
    for policy in ["auto", "futex", "yield", "spin"]:
        ring(policy, 16)


def cycles(n, count, extra=()):
    rc, out, err, dt = run([OSMPRUN, "-n", str(n), "--oversubscribe", *extra, WORKER, "cycles", str(count)],
                           timeout=280)
    expect_ok(rc, out, err, n, f"{count} cycles")
    print(f"{count} bootstrap/teardown cycles of {n} processes: {dt:.1f} s ({1000 * dt / count:.1f} ms each)")


def case_bootstrap_cycles():
    """Team creations and teardowns leave nothing in the shm directory: 200
    here, 50 on Rome (bootstrap_cycles_long: 1000 and 100)."""
    cycles(4, 200)
    cycles(8, 50, ["--topology", "rome", "--map-by", "scatter", "--vh", "auto"])


def case_bootstrap_cycles_long():
    cycles(4, 1000)
    cycles(8, 100, ["--topology", "rome", "--map-by", "scatter", "--vh", "auto"])


def kill_one(mode, n, delay):
    p = start([OSMPRUN, "-n", str(n), "--oversubscribe", WORKER] + mode)
    pids, head = pid_lines(p, n)
    time.sleep(delay)
    victim = random.randrange(n)
    t0 = time.time()
    os.kill(pids[victim], signal.SIGKILL)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        fail(f"osmprun did not finish 30 s after rank {victim} was killed")
    dt = time.time() - t0
    out = head + out
    if p.returncode == 0:
        fail(f"osmprun exited 0 although rank {victim} was killed\n{out}\n{err}")
    if f"rank {victim} (pid {pids[victim]}) was killed by signal 9" not in err:
        fail(f"osmprun did not name the killed rank {victim}:\n{err}")
    if mode[0] == "ring":
        # Every survivor reports an error naming the dead rank, and does not hang.
        for r in range(n):
            if r == victim:
                continue
            m = re.search(rf"^rank {r}: error: (.*)$", out, re.M)
            if not m:
                fail(f"rank {r} reported no error after rank {victim} died:\n{out}\n{err}")
            if f"rank {victim}" not in m.group(1):
                fail(f"rank {r}'s error does not name rank {victim}: {m.group(1)}")
    expect_clean(out)
    return dt


def case_kill_random_rank():
    """SIGKILL of a random rank, many times: the others stop with an error."""
    random.seed(os.getpid())
    worst = 0
    for i in range(12):
        n = random.randint(3, 8)
        if i % 3 == 2:
            dt = kill_one(["cycles", "1000000"], n, random.uniform(0.0, 0.3))  # during bootstrap
        else:
            dt = kill_one(["ring", "0"], n, random.uniform(0.05, 0.5))
        worst = max(worst, dt)
    print(f"12 kills: osmprun finished at most {worst:.2f} s after the kill")
    if worst > 10:
        fail(f"a job took {worst:.1f} s to stop after a rank was killed")


def case_launcher_killed():
    """osmprun itself SIGKILLed: its ranks stop, nothing is left behind."""
    for mode in (["ring", "0"], ["cycles", "1000000"]):
        p = start([OSMPRUN, "-n", "4", "--oversubscribe", "--grace", "0.5", WORKER] + mode)
        pids, head = pid_lines(p, 4)
        time.sleep(0.3)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        end = time.time() + 15
        while time.time() < end and any(alive(x) for x in pids.values()):
            time.sleep(0.05)
        still = [x for x in pids.values() if alive(x)]
        if still:
            fail(f"ranks {still} still run 15 s after osmprun was killed")
        job = job_ids(head)[0]
        end = time.time() + 10
        while time.time() < end and leftovers(job):
            time.sleep(0.05)
        if leftovers(job):
            fail(f"{leftovers(job)} left behind after osmprun was killed ({mode[0]})")


def case_two_jobs():
    a = start([OSMPRUN, "-n", "3", "--oversubscribe", WORKER, "ring", "3000"])
    b = start([OSMPRUN, "-n", "3", "--oversubscribe", WORKER, "ring", "3000"])
    out_a, err_a = a.communicate(timeout=120)
    out_b, err_b = b.communicate(timeout=120)
    expect_ok(a.returncode, out_a, err_a, 3, "job a")
    expect_ok(b.returncode, out_b, err_b, 3, "job b")
    if job_ids(out_a) == job_ids(out_b):
        fail("two jobs got the same job id")


def case_full_shm():
    # A limit through the API (works anywhere).
    rc, out, err, _ = run([OSMPRUN, "-n", "4", "--oversubscribe", "-x", "OSMP_SHM_LIMIT=64K", WORKER, "ring", "10"])
    if rc == 0 or "OSMP_SHM_LIMIT" not in out:
        fail(f"a 64K limit was not reported:\n{out}\n{err}")
    expect_clean(out)
    # A tiny tmpfs, as in a container.
    d = tempfile.mkdtemp(prefix="osmp-mp-tiny-")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", d],
                      capture_output=True).returncode != 0:
        os.rmdir(d)
        print("cannot mount a tmpfs here (not root?): skipped the tmpfs part")
        return
    try:
        rc, out, err, _ = run([OSMPRUN, "-n", "4", "--oversubscribe", WORKER, "ring", "10"],
                              env={"OSMP_SHM_DIR": d})
        if rc == 0 or f"not enough shared memory in {d}" not in out:
            fail(f"a full tmpfs was not reported clearly:\n{out}\n{err}")
        expect_clean(out, d)
        # Too small even for the job segment: osmprun says so before starting anything.
        subprocess.run(["mount", "-o", "remount,size=64k", d], check=True)
        rc, out, err, _ = run([OSMPRUN, "-n", "4", "--oversubscribe", WORKER, "ring", "10"],
                              env={"OSMP_SHM_DIR": d})
        if rc != 2 or "not enough shared memory" not in err or "needs" not in err:
            fail(f"osmprun did not report its own segment not fitting:\n{err}")
        if os.listdir(d):
            fail(f"left in the tiny tmpfs: {os.listdir(d)}")
    finally:
        subprocess.run(["umount", d])
        os.rmdir(d)


def case_rank_exit_code():
    rc, out, err, _ = run([OSMPRUN, "-n", "4", "--oversubscribe", WORKER, "exit", "2", "5"])
    if rc != 5:
        fail(f"exit status {rc}, expected rank 2's 5\n{err}")
    if not re.search(r"rank 2 \(pid \d+\) exited with status 5", err):
        fail(f"the failing rank is not named:\n{err}")
    for r in (0, 1, 3):
        if not re.search(rf"^rank {r}: error: .*rank 2", out, re.M):
            fail(f"rank {r} did not report rank 2's failure:\n{out}")
    expect_clean(out)


def case_timeout():
    rc, out, err, dt = run([OSMPRUN, "-n", "3", "--oversubscribe", "--timeout", "1", WORKER, "ring", "0"])
    if rc != 124 or "timeout of 1 s expired" not in err:
        fail(f"timeout: exit {rc}\n{err}")
    if dt > 8:
        fail(f"timeout of 1 s took {dt:.1f} s")
    expect_clean(out)


def case_bad_usage():
    cases = [
        ([OSMPRUN], 2, "no program to run"),
        ([OSMPRUN, "-n", "0", WORKER], 2, "out of range"),
        ([OSMPRUN, "--frobnicate", "-n", "2", WORKER], 2, "unknown option '--frobnicate'"),
        ([OSMPRUN, "-n", "64", WORKER, "ring"], 2, "add --oversubscribe"),
        ([OSMPRUN, "-n", "2", "--vh", "Foo:2", WORKER], 2, "unknown level 'Foo'"),
        ([OSMPRUN, "-n", "2", "--wait", "busy", WORKER], 2, "unknown wait policy 'busy'"),
        ([OSMPRUN, "-n", "2", "--topology", "/no/such.xml", WORKER], 2, "cannot read topology XML file"),
        ([OSMPRUN, "-n", "2", "--map-by", "l3", "--topology", "Package:1 Core:4 PU:1", WORKER], 2, "no L3Cache level"),
        ([OSMPRUN, "-n", "2", "--timeout", "soon", WORKER], 2, "not a number of seconds"),
        ([OSMPRUN, "-n", "2", "/no/such/program"], 127, "cannot run '/no/such/program'"),
    ]
    for args, code, text in cases:
        rc, out, err, _ = run(args)
        if rc != code or text not in err:
            fail(f"{args[1:]}: exit {rc} (expected {code}), stderr:\n{err}")
    rc, out, err, _ = run([OSMPRUN, "--help"])
    if rc != 0 or "--oversubscribe" not in out:
        fail("--help")


def case_placement():
    # A machine we don't have: ranks get virtual places and the tree follows them.
    rc, out, err, _ = run([OSMPRUN, "-n", "16", "--oversubscribe", "--topology", "rome", "--map-by", "scatter",
                           "--report-bindings", WORKER, "info"])
    if rc != 0:
        fail(f"virtual rome: {err}")
    if "rank 0 place 0 groups NUMANode:2* Package:4* Machine:2*" not in out:
        fail(f"rank 0 on the scattered Rome:\n{out}")
    if "rank 1 place 64 groups NUMANode:2* Package:4*" not in out:
        fail(f"rank 1 on the scattered Rome:\n{out}")
    if "virtual place Core L#64 (PUs 64)" not in err or "not this system" not in err:
        fail(f"--report-bindings on a virtual machine:\n{err}")
    # This machine: bound to cores, for real.
    ncpu = len(os.sched_getaffinity(0))
    n = min(ncpu, 2)
    rc, out, err, _ = run([OSMPRUN, "-n", str(n), "--report-bindings", WORKER, "info"])
    if rc != 0 or "bound to Core L#0" not in err:
        fail(f"real binding: {err}")
    for r in range(n):
        m = re.search(rf"^rank {r} place (\S+)", out, re.M)
        if not m or "," in m.group(1) or (n > 1 and m.group(1) == f"0-{ncpu - 1}"):
            fail(f"rank {r} is not bound to one core: {out}")
    rc, out, err, _ = run([OSMPRUN, "-n", "2", "--bind-to", "none", "--report-bindings", WORKER, "info"])
    if rc != 0 or "not bound" not in err or "groups Machine:2" not in out:
        fail(f"unbound: {out}\n{err}")
    rc, out, err, _ = run([OSMPRUN, "-n", "6", "--oversubscribe", WORKER, "info"])
    if rc != 0 or "oversubscribed" not in out:
        fail(f"6 ranks on {ncpu} CPUs not seen as oversubscribed: {out}")


def case_signal_forwarding():
    p = start([OSMPRUN, "-n", "3", "--oversubscribe", WORKER, "ring", "0"])
    pids, head = pid_lines(p, 3)
    time.sleep(0.2)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    if p.returncode != 128 + signal.SIGTERM or "received Terminated" not in err:
        fail(f"SIGTERM: exit {p.returncode}\n{err}")
    if any(alive(x) for x in pids.values()):
        fail("ranks survived the forwarded SIGTERM")
    expect_clean(head + out)


def case_env_only():
    """Started without osmprun: rank 0 creates the bootstrap segment."""
    job = "%016x" % random.getrandbits(64)
    n = 3
    procs = [start([WORKER, "ring", "500"], env={"OSMP_JOB_ID": job, "OSMP_RANK": str(r), "OSMP_SIZE": str(n)})
             for r in range(n)]
    outs = [p.communicate(timeout=60) for p in procs]
    for r, (p, (out, err)) in enumerate(zip(procs, outs)):
        if p.returncode != 0 or f"rank {r} ok" not in out:
            fail(f"rank {r} without a launcher: exit {p.returncode}\n{out}\n{err}")
    if leftovers(job):
        fail(f"left behind: {leftovers(job)}")
    # A rank that never comes: the others give up with a clear error.
    procs = [start([WORKER, "ring", "10"], env={"OSMP_JOB_ID": job, "OSMP_RANK": str(r), "OSMP_SIZE": "3",
                                                 "OSMP_BOOTSTRAP_TIMEOUT": "2"}) for r in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=60)
        if p.returncode != 3 or ("rank 2" not in out and "did not appear" not in out):
            fail(f"missing rank: exit {p.returncode}\n{out}")
    if leftovers(job):
        fail(f"left behind after a missing rank: {leftovers(job)}")


def case_tag_output():
    rc, out, err, _ = run([OSMPRUN, "-n", "2", "--tag-output", WORKER, "ring", "10"])
    if rc != 0:
        fail(err)
    lines = [l for l in out.splitlines() if l]
    if not lines or not all(re.match(r"\[[01]\] ", l) for l in lines):
        fail(f"untagged lines: {lines}")
    if "[1] rank 1 ok" not in out:
        fail(out)


if __name__ == "__main__":
    try:
        globals()["case_" + sys.argv[1]]()
    except NotStarted as e:
        fail(str(e))
    print("ok")
