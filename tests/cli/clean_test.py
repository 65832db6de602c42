#!/usr/bin/env python3
"""osmp-clean removes the calling user's stale osmp names, keeps what a
process still holds, and leaves other users' alone (label cli).

usage: clean_test.py OSMP_CLEAN
"""
import os
import subprocess
import sys
import tempfile

CLEAN = sys.argv[1]
uid = os.geteuid()


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


with tempfile.TemporaryDirectory() as d:
    stale = os.path.join(d, f"osmp-{uid}-00000000deadbeef-job")
    held = os.path.join(d, f"osmp-{uid}-00000000deadbeef-ctl")
    foreign = os.path.join(d, f"osmp-{uid}-00000000deadbeef-g0")
    for p in (stale, held, foreign):
        with open(p, "wb") as f:
            f.write(b"x" * 4096)
    if uid == 0:
        os.chown(foreign, 65534, 65534)
    holder = subprocess.Popen(["sleep", "60"], stdin=open(held, "rb"))
    try:
        dry = subprocess.run([CLEAN, "--dry-run", "--dir", d], capture_output=True, text=True)
        if dry.returncode != 0 or "would remove" not in dry.stdout or not os.path.exists(stale):
            fail(f"--dry-run:\n{dry.stdout}{dry.stderr}")
        run = subprocess.run([CLEAN, "--dir", d], capture_output=True, text=True)
        print(run.stdout)
        if run.returncode != 0:
            fail(f"exit {run.returncode}: {run.stderr}")
        if os.path.exists(stale) or f"{stale}: stale (4.0 KiB): removed" not in run.stdout:
            fail("the stale name was not removed")
        if not os.path.exists(held) or f"in use by pid {holder.pid}: kept" not in run.stdout:
            fail("a name in use was removed, or not reported as in use")
        if uid == 0 and (not os.path.exists(foreign) or "not yours: left alone" not in run.stdout):
            fail("another user's name was touched")
    finally:
        holder.kill()
        holder.wait()
bad = subprocess.run([CLEAN, "--frobnicate"], capture_output=True, text=True)
if bad.returncode != 2 or "unknown argument '--frobnicate'" not in bad.stderr:
    fail(f"bad argument: {bad.returncode} {bad.stderr}")
print("ok")
