#!/usr/bin/env bash
# check_op_switches.sh: no layer decides per operation outside
# collectives/ops/ (issue 46; CONTRIBUTING.md, "Add an operation"). Each
# operation is described once (collectives/ops/<name>.hpp, read through describe.hpp) and the other
# layers read the description: a `case` on an operation, or a comparison of
# one with a named operation (OpKind::x, OSMP_COLL_X), outside
# collectives/ops/ is reported. Naming an operation as a value (an entry
# point's own kind, a list to tune) is fine. Tests, benchmarks and examples
# are not the library. Reads the sources git tracks; fails when it finds none.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! files=$(git ls-files -- '*.hpp' '*.cpp' '*.h' '*.c') || [ -z "$files" ]; then
  echo "op switches: no tracked sources (not a git checkout?)"
  exit 1
fi
kind='(OpKind::[a-z_]+|OSMP_COLL_[A-Z_]+)'
found=$(grep -vE '^(tests|bench|examples|collectives/ops)/' <<<"$files" |
        xargs grep -nE "case $kind|(==|!=) *(static_cast<[a-z_:]+>\()?$kind|$kind\)? *(==|!=)" |
        grep -vE "OSMP_COLL_ALL *(==|!=)|(==|!=) *OSMP_COLL_ALL")
if [ -n "$found" ]; then
  echo "$found"
  echo "op switches: $(wc -l <<<"$found") places decide per operation outside collectives/ops/: read its description (collectives/ops/<name>.hpp, through describe.hpp) instead"
  exit 1
fi
echo "op switches: none outside collectives/ops/ ($(wc -l <<<"$files") sources)"
