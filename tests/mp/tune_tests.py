#!/usr/bin/env python3
"""osmp-tune and the tuning file, end to end (CTest label mp).

usage: tune_tests.py CASE OSMP_TUNE OSMPRUN MP_COLL
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TUNE, OSMPRUN, COLL = sys.argv[2], sys.argv[3], sys.argv[4]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, env=None, timeout=300):
    e = dict(os.environ)
    e.pop("OSMP_TUNING_FILE", None)
    e.update(env or {})
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=e)
    return p.returncode, p.stdout, p.stderr


def settings(n, tuning, extra=()):
    """Each operation's spec in a job started like the tuner's (n ranks, bound by core)."""
    args = [OSMPRUN, "-n", str(n), "--oversubscribe", "-x", "OSMP_VERBOSE=2", *extra, COLL, "settings"]
    rc, out, err = run(args, {"OSMP_TUNING_FILE": tuning})
    if rc != 0:
        fail(f"{' '.join(args)}: exit {rc}\n{out}\n{err}")
    return dict(re.findall(r"^op (\w+) vh '([^']*)'", out, re.M)), err


def case_roundtrip():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sub", "tuning.json")
        rc, out, err = run([TUNE, "-n", "3", "--quick", "--ops", "allreduce,bcast,reduce", "--sizes", "8,4K",
                            "-o", path])
        if rc != 0 or f"wrote {path}" not in out:
            fail(f"osmp-tune: exit {rc}\n{out}\n{err}")
        if "100%" not in err and "done in" not in err:
            fail(f"no progress shown:\n{err}")
        f = json.load(open(path))
        if f["format"] != "osmp-tuning" or f["processes"] != 3 or not re.fullmatch(r"[0-9a-f]{16}", f["fingerprint"]):
            fail(f"bad header: {f}")
        if not f["calibration"]["levels"] or not f["measurements"]:
            fail("no calibration or measurements")
        # CMA's figures: measured where the ranks may read each other (the
        # source says which), the typical ones else; never missing or zero.
        cal = f["calibration"]
        if not (cal.get("cma_call_us", 0) > 0 and cal.get("cma_us_per_kib", 0) > 0) or "CMA: " not in cal["source"]:
            fail(f"no CMA figures in the calibration: {cal}")
        print(f"tuned: settings {f['settings']}, ops {f['ops']}, {len(f['measurements'])} measurements")

        # The runtime applies a file made for its placement.
        f["settings"] = {"OSMP_BASE_CASE": "knomial:2"}
        f["ops"] = {"reduce": {"OSMP_VH": "?2"}}
        edited = os.path.join(tmp, "edited.json")
        json.dump(f, open(edited, "w"))
        vh, err = settings(3, edited)
        if vh.get("reduce") != "?2" or vh.get("allreduce") != "" or "tuning file" not in err:
            fail(f"tuning file not applied: {vh}\n{err}")
        # The environment wins over the file.
        vh, _ = settings(3, edited, ["-x", "OSMP_VH=?3"])
        if vh.get("reduce") != "?3" or vh.get("bcast") != "?3":
            fail(f"OSMP_VH did not win over the file: {vh}")
        # Another placement: reported and ignored.
        vh, err = settings(2, edited)
        if vh.get("reduce") != "" or "made for another topology/placement" not in err:
            fail(f"a mismatched file was not ignored: {vh}\n{err}")
        # A corrupt file: reported and ignored.
        corrupt = os.path.join(tmp, "corrupt.json")
        open(corrupt, "w").write(open(edited).read()[:200])
        vh, err = settings(3, corrupt)
        if vh.get("reduce") != "" or "corrupt.json" not in err:
            fail(f"a corrupt file was not reported and ignored: {vh}\n{err}")
        # A setting the runtime refuses, per operation or for all: reported,
        # the defaults run (the team is still created).
        for ops, team in (({"reduce": {"OSMP_VH": "Frob:2"}}, {}), ({}, {"OSMP_VH": "Frob:2"})):
            f["ops"], f["settings"] = ops, team
            json.dump(f, open(edited, "w"))
            vh, err = settings(3, edited)
            if vh.get("reduce") != "" or "refused" not in err or "Frob" not in err:
                fail(f"a refused setting ({ops or team}) was not reported: {vh}\n{err}")


def case_bad_usage():
    rc, out, err = run([TUNE, "--ops", "allreduce,frob"])
    if rc != 2 or "unknown operation 'frob'" not in err:
        fail(f"bad --ops: {rc} {err}")
    rc, out, err = run([TUNE, "--sizes", "8,1X"])
    if rc != 2 or "--sizes" not in err:
        fail(f"bad --sizes: {rc} {err}")
    rc, out, err = run([TUNE, "-n", "2", "--quick", "--ops", "barrier", "-o", "/proc/osmp-no/tuning.json"])
    if rc == 0 or "/proc/osmp-no" not in out + err:
        fail(f"unwritable output: {rc} {out} {err}")


if __name__ == "__main__":
    globals()["case_" + sys.argv[1]]()
    print("ok")
