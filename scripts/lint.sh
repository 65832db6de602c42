#!/usr/bin/env bash
# lint.sh [format|fix|tidy|all] [BUILD_DIR]: the habits the lint tier checks
# (docs/design.md, "Layout and lint").
#   format  every tracked C/C++ source is as .clang-format lays it out
#           (lists the files that are not, and how to fix them)
#   fix     lays them out (clang-format -i), for a commit of its own
#   tidy    clang-tidy with .clang-tidy's checks over every source of the
#           library, the tools and the MPI glue in BUILD_DIR's
#           compile_commands.json (default build/); any finding fails
#   all     format, then tidy (the default)
# Needs clang-format and clang-tidy 16 or later (scripts/setup.sh installs
# them): 14 cannot parse std::source_location from GCC 12's library. Without
# them it exits 77, which CTest counts as skipped.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mode=${1:-all}
build=${2:-build}
tool() {  # tool NAME: the newest NAME-<version> >= 16, or NAME itself when it is >= 16
  local name=$1 v
  for v in 19 18 17 16; do command -v "$name-$v" >/dev/null && { echo "$name-$v"; return; }; done
  if command -v "$name" >/dev/null && [ "$("$name" --version | grep -oE 'version [0-9]+' | grep -oE '[0-9]+')" -ge 16 ]; then
    echo "$name"; return
  fi
  echo "lint: no $name 16 or later (scripts/setup.sh installs it)" >&2
  exit 77  # CTest: skipped, not failed
}
sources() { git ls-files -- '*.cpp' '*.hpp' '*.h' '*.c' | grep -v '^tests/data/'; }

check_format() {
  local cf bad=0 f
  cf=$(tool clang-format) || return
  while IFS= read -r f; do
    if ! "$cf" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
      echo "lint: $f is not laid out as .clang-format says (scripts/lint.sh fix)"
      bad=1
    fi
  done < <(sources)
  [ $bad = 0 ] && echo "lint: format: $(sources | wc -l) files as .clang-format says"
  return $bad
}

fix_format() {
  local cf
  cf=$(tool clang-format) || return
  sources | xargs -r "$cf" --style=file -i
}

check_tidy() {
  local ct rc
  ct=$(tool clang-tidy) || return
  [ -f "$build/compile_commands.json" ] || { echo "lint: no $build/compile_commands.json (build first)" >&2; return 1; }
  # The project's own translation units (tests and benchmarks aside), tracked ones only.
  mapfile -t files < <(git ls-files -- '*.cpp' '*.c' | grep -vE '^(tests|bench|examples)/' |
                       while read -r f; do grep -q "\"file\": \"$root/$f\"" "$build/compile_commands.json" && echo "$f"; done)
  [ ${#files[@]} -gt 0 ] || { echo "lint: no sources of $build's compile_commands.json" >&2; return 1; }
  # GCC's flags that clang does not know (the component's TLS dialect) are
  # dropped from the commands clang-tidy reads.
  local db
  db=$(mktemp -d)
  sed -e 's/ -mtls-dialect=gnu2//g' "$build/compile_commands.json" > "$db/compile_commands.json"
  printf '%s\n' "${files[@]}" | xargs -r -P "$(nproc)" -n 1 "$ct" -p "$db" --quiet 2>&1 |
    grep -E '(warning|error):' | sort -u > "$build/lint-tidy.txt"
  rm -rf "$db"
  if [ -s "$build/lint-tidy.txt" ]; then
    cat "$build/lint-tidy.txt"
    echo "lint: tidy: $(wc -l < "$build/lint-tidy.txt") findings in ${#files[@]} files"
    return 1
  fi
  echo "lint: tidy: ${#files[@]} files, no findings"
}

case $mode in
  format) check_format ;;
  fix) fix_format ;;
  tidy) check_tidy ;;
  all) check_format; f=$?; check_tidy; t=$?; [ $f = 0 ] && [ $t = 0 ] ;;
  *) echo "usage: lint.sh [format|fix|tidy|all] [BUILD_DIR]" >&2; exit 2 ;;
esac
