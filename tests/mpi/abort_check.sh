#!/usr/bin/env bash
# abort_check.sh COMMAND...: a job in which one rank calls MPI_Abort must end
# (not hang: 120 s at most) with a failure status, and leave nothing of osmp
# in /dev/shm.
set -u
before=$(ls /dev/shm | grep -c '^osmp-' || true)
timeout 120 "$@" > /dev/null 2>&1
rc=$?
after=$(ls /dev/shm | grep -c '^osmp-' || true)
[ $rc -ne 124 ] || { echo "abort_check: the job hung"; exit 1; }
[ $rc -ne 0 ] || { echo "abort_check: the job exited 0 despite MPI_Abort"; exit 1; }
[ "$after" -le "$before" ] || { echo "abort_check: osmp segments left in /dev/shm"; ls /dev/shm; exit 1; }
echo "abort_check: ended with status $rc, /dev/shm clean"
