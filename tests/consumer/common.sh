# Sourced by the consumer scripts: runs the examples (examples/), built against
# an installed osmp, as osmp jobs and checks what they print.
set -euo pipefail
# expect TEXT COMMAND...: runs COMMAND, shows its output, fails unless TEXT is in it.
expect() {
  local text=$1 out; shift
  out=$("$@" 2>&1) || { echo "$out"; echo "FAILED ($?): $*" >&2; return 1; }
  echo "$out"
  grep -qF -- "$text" <<<"$out" || { echo "expected '$text' from: $*" >&2; return 1; }
}
# run_examples PREFIX C_PROGRAM CXX_PROGRAM: both under the installed osmprun.
run_examples() {
  local prefix=$1
  expect "sum of ranks 0..2 = 3; bcast from rank 2 gave 2" \
    env LD_LIBRARY_PATH="$prefix/lib" "$prefix/bin/osmprun" -n 3 --oversubscribe "$2"
  expect "1048576 floats summed over 3 ranks: v[0] = 3" \
    env LD_LIBRARY_PATH="$prefix/lib" "$prefix/bin/osmprun" -n 3 --oversubscribe "$3"
}
