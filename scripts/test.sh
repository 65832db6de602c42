#!/usr/bin/env bash
# test.sh: installs what is missing, builds osmp and runs the whole test suite:
# the normal build, then the unit and sim tiers again under AddressSanitizer and
# UndefinedBehaviorSanitizer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build"
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)" -LE soak
if [ "${OSMP_TEST_SANITIZE:-1}" = 1 ]; then
  "$root/scripts/build.sh" "$root/build-asan" -DOSMP_SANITIZE="address;undefined" \
    -DOSMP_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=Debug
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir "$root/build-asan" --output-on-failure -j "$(nproc)" -L "unit|sim"
fi
echo "osmp: all tests passed"
