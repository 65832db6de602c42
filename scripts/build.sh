#!/usr/bin/env bash
# build.sh [BUILD_DIR] [extra cmake args...]: configures (Ninja, warnings as
# errors) and builds osmp. BUILD_DIR defaults to ./build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
cmake -S "$root" -B "$build" -G Ninja -DOSMP_WERROR=ON "$@" > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)"
