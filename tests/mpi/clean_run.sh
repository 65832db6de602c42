#!/usr/bin/env bash
# clean_run.sh COMMAND...: runs COMMAND (output passed through) with its own
# segment directory (OSMP_SHM_DIR, so that other jobs on the machine do not
# count) and fails when it fails, hangs (600 s) or leaves segments there.
set -u
dir=$(mktemp -d /dev/shm/osmp-test.XXXXXX)
export OSMP_SHM_DIR=$dir
trap 'rm -rf "$dir"' EXIT
trap 'exit 143' TERM INT
timeout 600 "$@" 2>&1
rc=$?
left=$(ls -A "$dir")
[ $rc -ne 124 ] || { echo "clean_run: the job hung"; exit 1; }
[ $rc -eq 0 ] || { echo "clean_run: exit status $rc"; exit 1; }
[ -z "$left" ] || { echo "clean_run: segments left behind: $left"; exit 1; }
echo "clean_run: no segment left"
