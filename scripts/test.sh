#!/usr/bin/env bash
# test.sh [TIER...]: installs what is missing, builds osmp and runs its tests.
#
#   (none) / all   every tier but long and soak (clang-tidy, label tidy, after the
#                  others), then unit and sim again under AddressSanitizer and
#                  UndefinedBehaviorSanitizer (build-asan/;
#                  OSMP_TEST_SANITIZE=0 skips that part): what CI runs
#   unit sim mp mpi cli consumer lint long soak
#                  only those CTest labels, on the normal build (a few seconds
#                  for unit, about a minute for sim, 5-10 minutes for mp and
#                  mpi, 3 for lint)
#
# Labels: unit (one process, no team), sim (ranks as threads), mp (ranks as
# processes, osmprun), mpi (both MPIs, the component and the interposers), cli
# (the commands, layering, the guides' code), consumer (projects built
# against an installed osmp), lint (clang-format and clang-tidy,
# scripts/lint.sh), long (the larger shapes of the sim, mp and mpi matrices:
# 16-rank machines, 8- and 10-rank MPI jobs; outside the default run), soak
# (long crash-safety runs, never in the default run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tiers=(unit sim mp mpi cli consumer lint long soak)
chosen=()
everything=1
for arg in "$@"; do
  known=0
  for t in all "${tiers[@]}"; do [ "$arg" = "$t" ] && known=1; done
  if [ "$known" = 0 ]; then
    echo "test.sh: '$arg' is not a tier (all ${tiers[*]})" >&2
    exit 2
  fi
  if [ "$arg" != all ]; then chosen+=("$arg"); fi
done
if [ ${#chosen[@]} -gt 0 ] && [[ " $* " != *" all "* ]]; then everything=0; fi
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build"
if [ "$everything" = 0 ]; then
  labels=$(IFS='|'; echo "${chosen[*]}")
  ctest --test-dir "$root/build" --output-on-failure --no-tests=error -j "$(nproc)" -L "^($labels)\$"
  echo "osmp: the $labels tests passed"
  exit 0
fi
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)" -LE "soak|tidy|long"
ctest --test-dir "$root/build" --output-on-failure --no-tests=error -L tidy
if [ "${OSMP_TEST_SANITIZE:-1}" = 1 ]; then
  "$root/scripts/build.sh" "$root/build-asan" -DOSMP_SANITIZE="address;undefined" \
    -DOSMP_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir "$root/build-asan" --output-on-failure -j "$(nproc)" -L "unit|sim" -LE long
fi
echo "osmp: all tests passed"
