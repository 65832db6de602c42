#!/usr/bin/env bash
# expect_all.sh REGEX... -- COMMAND...: runs COMMAND, passes when it exits 0
# and its output (stdout + stderr) matches every REGEX and no line says FAIL.
set -u
regexes=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do regexes+=("$1"); shift; done
shift
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || { echo "expect_all: exit status $rc"; exit 1; }
if grep -q "FAIL" <<<"$out"; then echo "expect_all: a FAIL line"; exit 1; fi
for r in "${regexes[@]}"; do
  grep -Eq "$r" <<<"$out" || { echo "expect_all: no line matches '$r'"; exit 1; }
done
