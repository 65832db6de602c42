#!/usr/bin/env python3
"""Crash safety and hostile users under MPI (label mpi).

usage: security_tests.py CASE FLAVOURS ARG BIN_DIR BUILD_DIR

  run F init_with -   osmp_init_with over MPI flavour F (ompi, mpich) on 4 ranks
  kill_points "ompi;mpich" -
                      every route osmp takes in an MPI job (the interposer with
                      each MPI, Open MPI's coll/osmp, osmp_init_with) with rank 1
                      SIGKILLed at each kill point it passes: the job ends (no
                      hang), the dead rank is named, nothing is left in /dev/shm
                      and no process of the job remains
  hostile "ompi;mpich" -
                      the same routes run normally while another user attacks
                      (mp_intruder): nothing of theirs is reached
"""
import os
import re
import subprocess
import sys
import time

CASE, FLAVOURS, ARG, BIN, BUILD = sys.argv[1:6]
FLAVOURS = [f for f in FLAVOURS.split(";") if f]
LIB = os.path.join(BUILD, "lib")
SHM = "/dev/shm"
SKIP = 77
NP = 4


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ompi_pkglibdir():
    out = subprocess.run(["ompi_info", "--path", "pkglibdir", "--parsable"], capture_output=True, text=True).stdout
    m = re.search(r"pkglibdir:(\S+)", out)
    return m.group(1) if m else "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3"


def mpirun(flavour, np, env, prog_args):
    """The launch line of tests/mpi/CMakeLists.txt, with `env` for every rank."""
    if flavour == "ompi":
        cmd = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1",
               "--bind-to", "none"]
        for k, v in env.items():
            cmd += ["-x", f"{k}={v}"]
    else:
        cmd = ["mpirun.mpich"]
        for k, v in env.items():
            cmd += ["-genv", k, v]
    return cmd + ["-np", str(np)] + prog_args


def routes():
    """(name, flavour, env, program, reconfigure program) of every way osmp runs under MPI."""
    out = []
    for f in FLAVOURS:
        pmpi = os.path.join(LIB, "libosmp_pmpi.so" if f == "ompi" else "libosmp_pmpi_mpich.so")
        out.append((f"{f} interposer", f, {"LD_PRELOAD": pmpi}, [os.path.join(BIN, f"coll_test_{f}")],
                    [os.path.join(BIN, f"vh_info_test_{f}"), "interposer"]))
        if f == "ompi" and os.path.exists(os.path.join(LIB, "openmpi", "mca_coll_osmp.so")):
            path = f"{ompi_pkglibdir()}:{os.path.join(LIB, 'openmpi')}"
            out.append(("ompi coll/osmp", f, {"COMPONENT_PATH": path, "COLL_TEST_NO_OSMP": "1"},
                        [os.path.join(BIN, "coll_test_ompi")],
                        [os.path.join(BIN, "vh_info_test_ompi"), "component"]))
        out.append((f"{f} osmp_init_with", f, {}, [os.path.join(BIN, f"init_with_{f}")],
                    [os.path.join(BIN, f"init_with_{f}")]))
    return out


def command(route, np, extra, reconfigure=False):
    name, f, env, prog, reprog = route
    env = dict(env)
    env.update(extra)
    args = reprog if reconfigure else prog
    if "COMPONENT_PATH" in env:
        path = env.pop("COMPONENT_PATH")
        cmd = mpirun(f, np, env, args)
        i = cmd.index("-np")
        return cmd[:i] + ["--mca", "mca_base_component_path", path] + cmd[i:]
    return mpirun(f, np, env, args)


def osmp_names():
    """osmp's names in /dev/shm (it makes none; the MPIs' own are theirs)."""
    return {n for n in os.listdir(SHM) if n.startswith("osmp")}


def leftovers(before, progs):
    names = osmp_names() - before
    alive = subprocess.run(["pgrep", "-f", "|".join(os.path.basename(p) for p in progs)], capture_output=True,
                           text=True).stdout.split()
    return names, alive


def expect_clean(before, progs, what):
    end = time.time() + 5
    while True:
        names, alive = leftovers(before, progs)
        if not names and not alive:
            return
        if time.time() > end:
            fail(f"{what}: left behind: names {sorted(names)} processes {alive}")
        time.sleep(0.05)


def run_job(cmd, timeout=180):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        fail(f"the job hung: {' '.join(cmd)}\n{e.stdout}\n{e.stderr}")
    return p.returncode, (p.stdout or "") + (p.stderr or "")


# Where each route passes: team creation and finalize everywhere; a
# reconfiguration where the program changes the virtual hierarchy.
TEAM_POINTS = ["team.settings", "team.created", "team.attached", "team.ready"]
RECONFIGURE_POINTS = ["reconfigure.begin", "reconfigure.built"]


def case_run():
    """ARG: the route's program, 'init_with'."""
    route = [r for r in routes() if ARG in r[0]][0]
    before = osmp_names()
    rc, out = run_job(command(route, NP, {}))
    if rc != 0 or f"init_with {NP} ranks: ok" not in out:
        fail(f"exit {rc}\n{out}")
    expect_clean(before, route[3], "init_with")


def named(out):
    """The dead process named: by osmp in a survivor ("rank 1 (pid 812) died"),
    or by the MPI's launcher (Open MPI: "process rank 2 with PID ... exited on
    signal 9"; MPICH: "PID 7289 RUNNING AT ... EXIT STRING: Killed (signal 9)"). Under MPI the kill point's
    rank is the rank in the team being built, which for a split communicator
    need not be the world rank."""
    return bool(re.search(r"rank \d+ \(pid \d+\) died|process rank \d+ with PID .* signal 9|"
                          r"PID \d+ RUNNING AT .*\n.*EXIT CODE: 9|KILLED BY SIGNAL: 9", out))


def case_kill_points():
    checked = 0
    for route in routes():
        name, f = route[0], route[1]
        for point in TEAM_POINTS + RECONFIGURE_POINTS + ["finalize"]:
            reconf = point in RECONFIGURE_POINTS
            before = osmp_names()
            rc, out = run_job(command(route, NP, {"OSMP_TEST_KILL": f"{point}:1"}, reconf))
            what = f"{name}, rank 1 killed at {point}"
            if rc == 0:
                fail(f"{what}: the job succeeded (the point was not reached?)\n{out}")
            if not named(out):
                fail(f"{what}: the dead rank is not named\n{out}")
            expect_clean(before, route[4 if reconf else 3], what)
            checked += 1
    print(f"  {checked} route x kill point runs: ended, named, clean")


def case_hostile():
    if os.geteuid() != 0:
        print("skipped: becoming another user needs root")
        sys.exit(SKIP)
    intruder = subprocess.Popen([os.path.join(BIN, "mp_intruder"), "65534", "0", "60"], stdout=subprocess.PIPE,
                                text=True)
    time.sleep(0.3)
    for route in routes():
        before = osmp_names()
        rc, out = run_job(command(route, NP, {}))
        if rc != 0 or "ok" not in out:
            fail(f"{route[0]} under attack: exit {rc}\n{out}")
        expect_clean(before, route[3], route[0])
    intruder.terminate()  # SIGTERM: prints its report and leaves
    out, _ = intruder.communicate(timeout=60)
    print("  " + out.strip())
    m = re.search(r"joined (\d+) stolen (\d+) opened (\d+)", out)
    if not m or any(int(x) for x in m.groups()):
        fail(f"another user reached a job: {out}")


if __name__ == "__main__":
    globals()["case_" + CASE]()
    print("ok")
