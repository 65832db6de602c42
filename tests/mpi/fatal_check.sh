#!/usr/bin/env bash
# fatal_check.sh REGEX COMMAND...: under MPI_ERRORS_ARE_FATAL the job must
# end (not hang: 120 s at most) with a failure status, its output must match
# REGEX (osmp's message), and no segment may stay behind (in a directory of
# its own, OSMP_SHM_DIR).
set -u
regex=$1
shift
dir=$(mktemp -d /dev/shm/osmp-test.XXXXXX)
export OSMP_SHM_DIR=$dir
trap 'rm -rf "$dir"' EXIT
trap 'exit 143' TERM INT
out=$(timeout 120 "$@" 2>&1)
rc=$?
left=$(ls -A "$dir")
printf '%s\n' "$out" | tail -20
[ $rc -ne 124 ] || { echo "fatal_check: the job hung"; exit 1; }
[ $rc -ne 0 ] || { echo "fatal_check: the job exited 0"; exit 1; }
grep -Eq "$regex" <<<"$out" || { echo "fatal_check: no line matches '$regex'"; exit 1; }
[ -z "$left" ] || { echo "fatal_check: segments left behind: $left"; exit 1; }
echo "fatal_check: aborted with the message, status $rc, no segment left"
