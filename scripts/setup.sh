#!/usr/bin/env bash
# Installs on a fresh Debian 12 whatever osmp needs to build, test and benchmark.
# Idempotent: does nothing (and never touches apt) when everything is present.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config
  libhwloc-dev hwloc libnuma-dev
  googletest libgtest-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  mpich libmpich-dev
  python3 gnuplot-nox
  # scripts/callcost.sh counts instructions per call with callgrind
  valgrind
  nlohmann-json3-dev librsvg2-bin
  # packaging: cpack -G DEB (dpkg-deb, dpkg-shlibdeps); libudev-dev lets
  # pkg-config --static's link line (hwloc's Libs.private) resolve -ludev
  dpkg-dev file libudev-dev
  # the lint tier (scripts/lint.sh): 16, the first that parses GCC 12's
  # std::source_location
  clang-format-16 clang-tidy-16
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup.sh: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  else
    echo "setup.sh: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
