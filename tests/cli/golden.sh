#!/usr/bin/env bash
# golden.sh GOLDEN COMMAND...: runs COMMAND and compares its stdout with GOLDEN.
# OSMP_UPDATE_GOLDEN=1 rewrites GOLDEN instead.
set -u
golden=$1; shift
out=$("$@") || { echo "command failed: $*" >&2; exit 1; }
if [ "${OSMP_UPDATE_GOLDEN:-0}" = 1 ]; then
  printf '%s\n' "$out" > "$golden"; echo "updated $golden"; exit 0
fi
diff -u "$golden" <(printf '%s\n' "$out") || { echo "output differs from $golden (OSMP_UPDATE_GOLDEN=1 to accept)" >&2; exit 1; }
