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


def osmp_names(owner=None):
    """osmp's names in the shm directory: it makes none; other software on the
    machine may make its own, which are not ours to judge. With `owner` (a
    uid), only the names that uid owns: another user's planted names are not
    a run's leftovers."""
    names = set()
    for n in os.listdir(SHM):
        if not n.startswith("osmp"):
            continue
        if owner is not None:
            try:
                if os.stat(os.path.join(SHM, n)).st_uid != owner:
                    continue
            except OSError:
                continue  # gone meanwhile
        names.add(n)
    return names


def socket_owners():
    """{socket inode: uids of the processes holding it}, from /proc/*/fd."""
    owners = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            uid = os.stat(f"/proc/{p}").st_uid
            fds = os.listdir(f"/proc/{p}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink(f"/proc/{p}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                owners.setdefault(link[8:-1], set()).add(uid)
    return owners


def osmp_sockets(owner=None):
    """Abstract unix sockets of osmp (rendezvous) in this network namespace.
    With `owner` (a uid), only those some process of that uid holds: another
    user's forged rendezvous are not a run's leftovers."""
    with open("/proc/net/unix") as f:
        rows = [l.split() for l in f]
    rows = [r for r in rows if len(r) >= 8 and r[-1].startswith("@osmp-")]
    if owner is None:
        return {r[-1] for r in rows}
    owners = socket_owners()
    return {r[-1] for r in rows if owner in owners.get(r[6], set())}
