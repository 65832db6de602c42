"""What the multi-process tests (labels mp, soak) look at from the outside:
ranks' pid lines, processes by a tag in their command line, process states,
osmp's names in the shm directory and its rendezvous sockets."""
import os
import re
import time

SHM = os.environ.get("OSMP_SHM_DIR") or "/dev/shm"


class NotStarted(Exception):
    pass


def pid_lines(proc, n, timeout=30):
    """Reads a job's stdout until every rank printed "pid RANK PID"; returns
    ({rank: pid}, the lines read)."""
    pids, lines, end = {}, [], time.time() + timeout
    while len(pids) < n and time.time() < end:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.match(r"pid (\d+) (\d+)", line)
        if m:
            pids[int(m.group(1))] = int(m.group(2))
    if len(pids) < n:
        raise NotStarted(f"only {len(pids)} of {n} ranks started: {''.join(lines)}")
    return pids, "".join(lines)


def state(pid):
    """The process state letter ('R', 'S', 'Z', ...), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def alive(pid):
    """Running, not a zombie."""
    return state(pid) not in (None, "Z")


def tagged(tag):
    """Live processes (not zombies) whose command line holds `tag`."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                if tag.encode() not in f.read():
                    continue
        except OSError:
            continue
        if alive(int(p)):
            found.append(int(p))
    return found


def osmp_names():
    """osmp's names in the shm directory: it makes none; other software on the
    machine may make its own, which are not ours to judge."""
    return {n for n in os.listdir(SHM) if n.startswith("osmp")}


def osmp_sockets():
    """Abstract unix sockets of osmp (rendezvous) in this network namespace."""
    with open("/proc/net/unix") as f:
        return {l.split()[-1] for l in f if len(l.split()) >= 8 and l.split()[-1].startswith("@osmp-")}
