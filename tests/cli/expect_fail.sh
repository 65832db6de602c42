#!/usr/bin/env bash
# expect_fail.sh CODE REGEX COMMAND...: COMMAND must exit with CODE and print
# something matching REGEX on stderr.
set -u
code=$1; regex=$2; shift 2
err=$("$@" 2>&1 >/dev/null); rc=$?
[ "$rc" = "$code" ] || { echo "exit code $rc, expected $code: $*" >&2; echo "$err" >&2; exit 1; }
printf '%s\n' "$err" | grep -Eq -- "$regex" || { echo "stderr does not match '$regex':" >&2; echo "$err" >&2; exit 1; }
