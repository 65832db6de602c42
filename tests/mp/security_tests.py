#!/usr/bin/env python3
"""Security and crash safety (CTest label mp): another user attacks, impostors
join, ranks and launchers die at every step; nothing may be hijacked, blocked,
joined, hung or left behind.

usage: security_tests.py CASE BIN_DIR

Cases that need another uid become it (uid 65534) through mp_intruder and exit
77 (skipped) when not run as root.
"""
import ctypes
import os
import random
import re
import signal
import subprocess
import sys
import time

from mp_support import SHM, NotStarted, osmp_names, osmp_sockets, pid_lines, state, tagged

BIN = sys.argv[2]
OSMPRUN = os.path.join(BIN, "osmprun")
WORKER = os.path.join(BIN, "mp_worker")
COLL = os.path.join(BIN, "mp_coll")
INTRUDER = os.path.join(BIN, "mp_intruder")
SKIP = 77
NOBODY = 65534
KILL_POINTS = ["bootstrap.claimed", "bootstrap.attached", "team.settings", "team.created", "team.shared",
               "team.attached", "team.ready", "reconfigure.begin", "reconfigure.built", "finalize"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def need_root():
    if os.geteuid() != 0:
        print("skipped: becoming another user needs root")
        sys.exit(SKIP)


def env_with(extra):
    e = dict(os.environ)
    e.update(extra)
    return e


def start(args, extra=None, **kw):
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env_with(extra or {}), **kw)


class Clean:
    """What a run may not leave behind: its user's names in the shm directory
    and rendezvous sockets, processes carrying the run's tag. The intruder's
    own names and sockets (it targets every job it sees, osmprun's included)
    are its own to remove."""

    def __init__(self, tag=None):
        self.me = os.geteuid()
        self.names, self.sockets, self.tag = osmp_names(self.me), osmp_sockets(self.me), tag

    def check(self, what, wait=2.0):
        end = time.time() + wait
        while True:
            names, sockets = osmp_names(self.me) - self.names, osmp_sockets(self.me) - self.sockets
            procs = tagged(self.tag) if self.tag else []
            if not names and not sockets and not procs:
                return
            if time.time() > end:
                fail(f"{what}: left behind: names {sorted(names)} sockets {sorted(sockets)} processes {procs}")
            time.sleep(0.02)


def expect_ok(outs, n, what):
    for r in range(n):
        if not any(f"rank {r} ok" in o for o in outs):
            fail(f"{what}: rank {r} did not finish\n" + "\n".join(outs))


def env_job(n, job, extra=None, ranks=None, args=("ring", "2000")):
    """Ranks started without a launcher: only OSMP_JOB_ID, OSMP_RANK, OSMP_SIZE."""
    return [start([WORKER, *args], {"OSMP_JOB_ID": job, "OSMP_RANK": str(r), "OSMP_SIZE": str(n),
                                     "OSMP_BOOTSTRAP_TIMEOUT": "30", **(extra or {})})
            for r in (ranks if ranks is not None else range(n))]


def finish(procs, timeout=90):
    return [(p.wait(timeout=timeout), p.stdout.read()) for p in procs]


class Intruder:
    """mp_intruder as another user while the `with` block runs; its report
    (joined, stolen and opened must be 0) is checked on the way out, and it
    is stopped whatever happens."""

    def __init__(self, *jobs):
        self.p = subprocess.Popen([INTRUDER, str(NOBODY), "0", "600", *jobs], stdout=subprocess.PIPE, text=True)
        self.report = None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        self.p.terminate()  # it reports and removes what it planted
        out, _ = self.p.communicate(timeout=60)
        if kind:
            return False
        m = re.search(r"intruder: planted (\d+) forged (\d+) callers (\d+) joined (\d+) stolen (\d+) "
                      r"opened (\d+) tries (\d+)", out)
        if not m:
            fail(f"intruder said: {out}")
        keys = ["planted", "forged", "callers", "joined", "stolen", "opened", "tries"]
        self.report = dict(zip(keys, map(int, m.groups())))
        print("  " + out.strip())
        for k in ("joined", "stolen", "opened"):
            if self.report[k]:
                fail(f"another user {k} {self.report[k]} times: {out}")
        return False


def new_job():
    return "%016x" % random.getrandbits(64)


# --- another user ------------------------------------------------------------

def case_hostile_env_route():
    """Another uid pre-creates every name a job used to have, forges its
    rendezvous, steals, opens live segments and raises abort words, while
    jobs started without a launcher (predictable job ids) run: they run
    normally and nothing of theirs is reached (items 1, 2)."""
    need_root()
    jobs = [new_job() for _ in range(6)]
    with Intruder(*jobs) as intruder:
        time.sleep(0.7)  # let it plant first
        for job in jobs:
            n = random.choice([2, 3, 4])
            clean = Clean()
            res = finish(env_job(n, job, {"OSMP_BOOTSTRAP_TIMEOUT": "10"}))
            expect_ok([o for _, o in res], n, f"job {job} of {n} under attack")
            refusals(res, f"job {job} of {n} under attack")
            clean.check(f"job {job}")
    r = intruder.report
    if r["planted"] < len(jobs) or r["forged"] == 0:
        fail(f"the intruder did not get to attack: {r}")


def refusals(res, what):
    """Rank 0 says the first 3 refusals of another user's connections and
    counts the rest (item 5: was one warning per attempt, megabytes of
    stderr under a flood)."""
    said = sum(o.count("refused a connection") for _, o in res)
    if said > 3:
        fail(f"{what}: {said} refusals said one by one (at most 3)\n" + "\n".join(o for _, o in res))


def case_rendezvous_flood():
    """Another user connecting to a starting job's rendezvous thousands of
    times gets nothing and fills no log: at most 3 refusals said, the rest
    counted in one line (item 5)."""
    need_root()
    job = new_job()
    clean = Clean()
    real = env_job(3, job, {"MP_DELAY_RANK": "2", "MP_DELAY_MS": "2500"})
    end = time.time() + 20
    while not any(job in s for s in osmp_sockets()) and time.time() < end:
        time.sleep(0.01)
    flood = subprocess.run([INTRUDER, str(NOBODY), "flood", "2000", job], capture_output=True, text=True, timeout=60)
    m = re.search(r"flood: connected (\d+)", flood.stdout)
    if not m or int(m.group(1)) < 100:
        fail(f"the flood did not connect: {flood.stdout}{flood.stderr}")
    res = finish(real)
    expect_ok([o for _, o in res], 3, "the job under a flood")
    refusals(res, "the job under a flood")
    if not any(re.search(r"refused \d+ more connections from other users", o) for _, o in res):
        fail("the flood's refusals were not counted\n" + "\n".join(o for _, o in res))
    print(f"  {m.group(0)}; said: " + next(l for _, o in res for l in o.splitlines() if "more connections" in l))
    clean.check("flood")


def case_hostile_osmprun():
    """The same intruder against osmprun jobs and their collectives."""
    need_root()
    with Intruder() as intruder:
        time.sleep(0.3)
        # mp_coll heap: the shared heaps stay open (descriptor and mapping) for the whole job.
        for n, args in [(4, [WORKER, "ring", "3000"]), (3, [COLL, "random", "7", "300"]), (2, [COLL, "lifecycle"]),
                        (2, [COLL, "heap"])]:
            clean = Clean()
            p = subprocess.run([OSMPRUN, "-n", str(n), "--oversubscribe", *args], capture_output=True, text=True,
                               timeout=120)
            if p.returncode != 0:
                fail(f"osmprun job under attack: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
            expect_ok([p.stdout], n, "osmprun job under attack")
            clean.check("osmprun job")
    if intruder.report["tries"] == 0:
        fail(f"the intruder found nothing to try: {intruder.report}")


# --- impostors -------------------------------------------------------------

def environ_of(pid):
    with open(f"/proc/{pid}/environ", "rb") as f:
        return dict(kv.split("=", 1) for kv in f.read().decode(errors="replace").split("\0") if "=" in kv)


def case_impostor_osmprun():
    """A process of the same user with the job's id, rank 3 and even the job's
    descriptor (taken from the real rank 3 through /proc) does not join; the
    real rank 3, which comes later, does (item 3)."""
    p = start([OSMPRUN, "-n", "4", "--oversubscribe", "-x", "MP_DELAY_RANK=3", "-x", "MP_DELAY_MS=1500",
               WORKER, "ring", "3000"])
    pids, head = pid_lines(p, 4)
    env = environ_of(pids[3])
    fd = os.open(f"/proc/{pids[3]}/fd/{env['OSMP_JOB_FD']}", os.O_RDWR)
    imp = subprocess.run([WORKER, "ring", "3000"], capture_output=True, text=True, timeout=60, pass_fds=(fd,),
                         env=env_with({"OSMP_JOB_ID": env["OSMP_JOB_ID"], "OSMP_RANK": "3", "OSMP_SIZE": "4",
                                       "OSMP_JOB_FD": str(fd)}))
    os.close(fd)
    out = head + p.communicate(timeout=60)[0]
    if imp.returncode == 0 or "not the one osmprun started as rank 3" not in imp.stdout:
        fail(f"the impostor: exit {imp.returncode}\n{imp.stdout}")
    if p.returncode != 0:
        fail(f"the real job: exit {p.returncode}\n{out}")
    expect_ok([out], 4, "the real job")
    print("  impostor refused: " + imp.stdout.strip().splitlines()[-1])


def wait_mapped(pid, timeout=20):
    """Until `pid` maps a segment (it has the job segment, and claims next)."""
    end = time.time() + timeout
    while time.time() < end:
        with open(f"/proc/{pid}/maps") as f:
            if f"{SHM}/#" in f.read():
                return
        time.sleep(0.01)
    fail(f"pid {pid} never mapped a segment")


def case_impostor_env_route():
    """Without a launcher the first process to claim a rank has it: a second
    one with the same job id and rank gets an error and does not join, and a
    second rank 0 is refused too (item 3)."""
    job = new_job()
    clean = Clean()
    real = env_job(3, job, {"MP_DELAY_RANK": "2", "MP_DELAY_MS": "1500"})
    pids = {}
    for r, p in enumerate(real):
        pids.update(pid_lines(p, 1)[0])
    wait_mapped(pids[1])
    time.sleep(0.3)  # rank 1 has claimed by now; rank 2 is still asleep
    imp = env_job(3, job, ranks=[1])[0]
    rc, out = finish([imp])[0]
    if rc == 0 or "is already taken by pid" not in out:
        fail(f"a second rank 1: exit {rc}\n{out}")
    print("  second rank 1 refused: " + out.strip().splitlines()[-1])
    res = finish(real)
    expect_ok([o for _, o in res], 3, "the real job")
    clean.check("impostor, env route")
    # A second rank 0 while the first serves the job.
    job = new_job()
    first = env_job(2, job, ranks=[0])
    end = time.time() + 20
    while not any(job in s for s in osmp_sockets()) and time.time() < end:
        time.sleep(0.01)
    rc, out = finish(env_job(2, job, ranks=[0]))[0]
    if rc == 0 or "is already rank 0 of this job" not in out:
        fail(f"a second rank 0: exit {rc}\n{out}")
    res = finish(first + env_job(2, job, ranks=[1]))
    expect_ok([o for _, o in res], 2, "the job after a second rank 0")
    # A second rank 1 (and a second rank 0) once every rank has joined:
    # refused at once, every time (item 7: was a wait for the bootstrap
    # timeout in a quarter of the tries, the rendezvous being closed).
    job = new_job()
    real = env_job(3, job, args=("ring", "0"))
    marker = lambda: any(job in s and "started-" in s for s in osmp_sockets())
    end = time.time() + 20
    while not marker() and time.time() < end:
        time.sleep(0.01)
    if not marker():
        fail("the job never marked that it started")
    for r in [1, 2, 0, 1, 2]:
        t0 = time.time()
        rc, out = finish(env_job(3, job, ranks=[r]))[0]
        took = time.time() - t0
        want = "is already rank 0 of this job" if r == 0 else "the job has already started"
        if rc == 0 or want not in out or took > 5:
            fail(f"a second rank {r} after the start: exit {rc} after {took:.1f} s\n{out}")
    print("  a late rank refused: " + out.strip().splitlines()[-1])
    for p in real:
        p.terminate()
    finish(real)


# --- signals and deaths ------------------------------------------------------

def case_launcher_points():
    """osmprun signalled at each step of its start (kill points): SIGINT and
    SIGTERM are handled (nothing started yet, or the job stopped), SIGKILL
    leaves nothing either (item 5)."""
    for point in ("launcher.started", "launcher.prepared", "launcher.created", "launcher.spawned"):
        for sig in ("INT", "TERM", "KILL"):
            tag = f"lp-{os.getpid()}-{point}-{sig}"
            clean = Clean(tag)
            p = subprocess.run([OSMPRUN, "-n", "3", "--oversubscribe", WORKER, "ring", "2000", tag],
                               capture_output=True, text=True, timeout=60,
                               env=env_with({"OSMP_TEST_KILL": f"{point}:*:{sig}"}))
            want = {"INT": 130, "TERM": 143, "KILL": -9}[sig]
            if p.returncode != want:
                fail(f"SIG{sig} at {point}: exit {p.returncode}, expected {want}\n{p.stdout}\n{p.stderr}")
            if sig != "KILL" and "received" not in p.stderr:
                fail(f"SIG{sig} at {point}: osmprun did not say so\n{p.stderr}")
            clean.check(f"SIG{sig} at {point}")
    print("  4 points x 3 signals: handled, nothing left")


def case_early_signals():
    """SIGINT, SIGTERM and SIGKILL to osmprun in its first 50 ms: nothing left,
    no orphan, and every SIGINT/SIGTERM handled by osmprun (item 5)."""
    runs = int(os.environ.get("OSMP_EARLY_SIGNAL_RUNS", "30"))
    counts = {}
    for i in range(runs):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            tag = f"early-{os.getpid()}-{i}-{sig}"
            clean = Clean(tag)
            p = subprocess.Popen([OSMPRUN, "-n", "3", "--oversubscribe", WORKER, "ring", "0", tag],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            time.sleep(random.uniform(0, 0.05))
            p.send_signal(sig)
            rc = p.wait(timeout=30)
            err = p.stderr.read()
            counts[(sig.name, rc)] = counts.get((sig.name, rc), 0) + 1
            if sig != signal.SIGKILL and rc not in (128 + sig, -sig):
                fail(f"{sig.name} after start: exit {rc}\n{err}")
            clean.check(f"{sig.name} {i}")
    print("  " + ", ".join(f"{s} -> {rc}: {n}" for (s, rc), n in sorted(counts.items())))
    # A negative status means the signal came before osmprun's main() began
    # (the loader was still running): nothing existed yet.


def subreaper():
    """Orphans of our children become ours, and stay zombies until we reap."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        fail("cannot become a subreaper")


def watchdog_of(launcher):
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat") as f:
                    s = f.read()
                if "(osmprun-watch)" in s and int(s.rsplit(")", 1)[1].split()[1]) == launcher:
                    return int(p)
            except OSError:
                pass
    return None


def case_launcher_killed_zombies():
    """osmprun SIGKILLed while its ranks' new parent does not reap them: the
    watchdog counts the zombies as dead and is done in well under a second
    (it used to wait out 8 s: a zombie answers kill(pid, 0)) (item 10)."""
    subreaper()
    for n in (2, 4):
        tag = f"zombie-{os.getpid()}-{n}"
        clean = Clean(tag)
        p = start([OSMPRUN, "-n", str(n), "--oversubscribe", WORKER, "ring", "0", tag])
        pids, _ = pid_lines(p, n)
        dog = watchdog_of(p.pid)
        if not dog:
            fail("no watchdog")
        t0 = time.time()
        p.kill()
        p.wait()
        # The ranks and the watchdog are ours now; reap none until the watchdog is done.
        while state(dog) not in ("Z", None) and time.time() - t0 < 30:
            time.sleep(0.005)
        took = time.time() - t0
        ranks_done = all(state(q) in ("Z", None) for q in pids.values())
        for q in list(pids.values()) + [dog]:
            try:
                os.waitpid(q, 0)
            except ChildProcessError:
                pass
        print(f"  {n} ranks: the watchdog was done {took * 1000:.0f} ms after osmprun's death")
        if not ranks_done:
            fail("the watchdog finished with ranks still running")
        # Not a speed assertion: 8 s is what waiting on zombies cost.
        if took > 4:
            fail(f"the watchdog waited {took:.1f} s: it counted zombies as alive")
        clean.check(f"killed osmprun, {n} ranks")


def case_shm_dir():
    """-x OSMP_SHM_DIR reaches osmprun too: every segment of the job lives there;
    -x of what osmprun sets per rank is refused (item 7)."""
    d = f"/tmp/osmp-shm-dir-{os.getpid()}"
    os.makedirs(d, exist_ok=True)
    try:
        p = subprocess.run([OSMPRUN, "-n", "3", "--oversubscribe", "-x", f"OSMP_SHM_DIR={d}", WORKER, "where"],
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            fail(f"exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        for r in range(3):
            m = re.search(rf"rank {r} segments in (.*)", p.stdout)
            if not m or m.group(1).split() != [d]:
                fail(f"rank {r}'s segments are not all in {d}: {m.group(1) if m else p.stdout}")
        if os.listdir(d):
            fail(f"left in {d}: {os.listdir(d)}")
    finally:
        os.rmdir(d)
    for var in ("OSMP_RANK=1", "OSMP_JOB_ID=12", "OSMP_SIZE=2", "OSMP_JOB_FD=3"):
        p = subprocess.run([OSMPRUN, "-n", "2", "-x", var, WORKER, "ring", "1"], capture_output=True, text=True)
        name = var.split("=")[0]
        if p.returncode != 2 or f"osmprun sets {name} for each rank itself" not in p.stderr:
            fail(f"-x {var}: exit {p.returncode}\n{p.stderr}")
    p = subprocess.run([OSMPRUN, "-n", "2", "-x", "OSMP_VH=Bogus:2", WORKER, "ring", "1"], capture_output=True,
                       text=True)
    if p.returncode != 2 or "Bogus" not in p.stderr or "rank" in p.stdout:
        fail(f"-x OSMP_VH=Bogus:2 must be checked by osmprun before anything starts: {p.returncode}\n{p.stderr}")


# --- kill points -------------------------------------------------------------

def survivors_report(out, n, dead, point, what):
    for r in range(n):
        if r == dead:
            continue
        if f"rank {r} ok" in out and point == "finalize":
            continue
        lines = [l for l in out.splitlines() if l.startswith(f"rank {r}: error")]
        if not lines or not any(f"rank {dead}" in l for l in lines):
            fail(f"{what}: rank {r} did not report rank {dead}:\n{out}")


def case_kill_points_osmprun():
    """A rank SIGKILLed at every kill point, under osmprun: osmprun names it, the
    survivors' errors name it, nothing is left."""
    for point in KILL_POINTS:
        n, dead = 4, 2
        tag = f"kp-{os.getpid()}-{point}"
        clean = Clean(tag)
        p = subprocess.run([OSMPRUN, "-n", str(n), "--oversubscribe", "-x", f"OSMP_TEST_KILL={point}:{dead}",
                            COLL, "lifecycle", tag], capture_output=True, text=True, timeout=120)
        what = f"osmprun, killed at {point}"
        if p.returncode != 137 or f"rank {dead} (pid" not in p.stderr or "signal 9" not in p.stderr:
            fail(f"{what}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        survivors_report(p.stdout, n, dead, point, what)
        clean.check(what)
    print(f"  {len(KILL_POINTS)} kill points: named and clean")


def case_kill_points_env_route():
    """The same without a launcher: nobody but the survivors to notice."""
    for point in KILL_POINTS:
        n, dead = 3, 1
        job = new_job()
        clean = Clean(job)
        procs = [start([COLL, "lifecycle", job], {"OSMP_JOB_ID": job, "OSMP_RANK": str(r), "OSMP_SIZE": str(n),
                                                   "OSMP_TEST_KILL": f"{point}:{dead}",
                                                   "OSMP_BOOTSTRAP_TIMEOUT": "30"}) for r in range(n)]
        res = finish(procs)
        what = f"no launcher, killed at {point}"
        if res[dead][0] != -signal.SIGKILL:
            fail(f"{what}: rank {dead} exit {res[dead][0]}\n{res[dead][1]}")
        survivors_report("".join(o for _, o in res), n, dead, point, what)
        clean.check(what)
    print(f"  {len(KILL_POINTS)} kill points: named and clean")


def case_kill_creator_before_attach():
    """Rank 0 creates the control segment every other rank attaches. Killed
    after it has handed its part of the agreement that follows the attach to
    the others, while one of them has not attached yet, that one finds its
    segment gone and the agreement complete: its error (and so every
    survivor's) must say rank 0 died, not only that a segment is missing.
    Without a launcher, rank 1 stopped (SIGSTOP) before it attaches, rank 0
    SIGKILLed once it waits in the agreement, rank 1 continued. Then the
    same kill at team.shared under osmprun. Nothing is left either way."""
    for n in (3, 4):
        job = new_job()
        clean = Clean(job)
        procs = [start([COLL, "lifecycle", job], {"OSMP_JOB_ID": job, "OSMP_RANK": str(r), "OSMP_SIZE": str(n),
                                                   "OSMP_TEST_KILL": "team.shared:1:19",
                                                   "OSMP_BOOTSTRAP_TIMEOUT": "30"}) for r in range(n)]
        end = time.time() + 30
        while state(procs[1].pid) != "T":
            if time.time() > end or procs[1].poll() is not None:
                for p in procs:
                    p.kill()
                fail(f"{n} ranks: rank 1 never stopped at team.shared\n{finish(procs)}")
            time.sleep(0.01)
        time.sleep(0.5)  # rank 0 attaches nothing: it reaches the agreement and waits for rank 1
        procs[0].kill()
        while state(procs[0].pid) not in ("Z", None):  # a zombie, not reaped: its /proc/PID/fd is gone
            time.sleep(0.01)
        procs[1].send_signal(signal.SIGCONT)
        res = finish(procs)
        what = f"no launcher, {n} ranks, rank 0 killed while rank 1 had not attached"
        survivors_report("".join(o for _, o in res), n, 0, "team.shared", what)
        clean.check(what)
        tag = f"kc-{os.getpid()}-{n}"
        clean = Clean(tag)
        p = subprocess.run([OSMPRUN, "-n", str(n), "--oversubscribe", "-x", "OSMP_TEST_KILL=team.shared:0",
                            COLL, "lifecycle", tag], capture_output=True, text=True, timeout=120)
        what = f"osmprun, {n} ranks, rank 0 killed at team.shared"
        if p.returncode != 137:
            fail(f"{what}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        survivors_report(p.stdout, n, 0, "team.shared", what)
        clean.check(what)
    print("  rank 0 killed before another rank attached: named and clean (3 and 4 ranks, both routes)")


def case_lazy_dead_peer():
    """OSMP_CHECK=lazy: a rank SIGKILLed after a one-pass call that another rank
    found to be mismatched, before its next call: the survivors' next call
    (which resynchronises, or waits for it) fails naming it; nothing is left.
    Without a launcher (only the survivors to notice) and under osmprun."""
    for n, dead in ((2, 0), (3, 2), (4, 1)):
        job = new_job()
        clean = Clean(job)
        procs = [start([COLL, "lazy_dead", str(dead)], {"OSMP_JOB_ID": job, "OSMP_RANK": str(r), "OSMP_SIZE": str(n),
                                                        "OSMP_CHECK": "lazy", "OSMP_BOOTSTRAP_TIMEOUT": "30"})
                 for r in range(n)]
        res = finish(procs)
        what = f"lazy, {n} ranks, rank {dead} killed, no launcher"
        if res[dead][0] != -signal.SIGKILL:
            fail(f"{what}: rank {dead} exit {res[dead][0]}\n{res[dead][1]}")
        survivors_report("".join(o for _, o in res), n, dead, "lazy", what)
        clean.check(what)
        tag = f"lazy-{os.getpid()}-{n}"
        clean = Clean(tag)
        p = subprocess.run([OSMPRUN, "-n", str(n), "--oversubscribe", "-x", "OSMP_CHECK=lazy", COLL, "lazy_dead",
                            str(dead), tag], capture_output=True, text=True, timeout=120)
        what = f"lazy, {n} ranks, rank {dead} killed, osmprun"
        if p.returncode != 137 or f"rank {dead} (pid" not in p.stderr:
            fail(f"{what}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        survivors_report(p.stdout, n, dead, "lazy", what)
        clean.check(what)
    print("  a rank killed after a lazy mismatch: named by every survivor, nothing left")


if __name__ == "__main__":
    try:
        globals()["case_" + sys.argv[1]]()
    except NotStarted as e:
        fail(str(e))
    print("ok")
