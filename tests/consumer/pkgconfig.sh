#!/usr/bin/env bash
# pkgconfig.sh PREFIX PROJECT_DIR EXAMPLES_DIR WORK_DIR [static]: the examples'
# `cc app.c $(pkg-config --cflags --libs osmp)` from an installed PREFIX,
# for C (warnings as errors: no C++ flag may reach it) and C++, then runs
# them. With `static`: against a copy of PREFIX without libosmp.so, through
# `pkg-config --static`, and checks that nothing of osmp is loaded at run time.
source "$(dirname "$0")/common.sh"
prefix=$1; project=$2; examples=$3; work=$4; mode=${5:-shared}
rm -rf "$work"; mkdir -p "$work"
flags=(--cflags --libs)
if [ "$mode" = static ]; then
  cp -a "$prefix" "$work/prefix"
  prefix=$work/prefix
  [ -e "$prefix/lib/libosmp.a" ] || { echo "no libosmp.a in $prefix/lib (OSMP_BUILD_STATIC=OFF?)" >&2; exit 1; }
  rm -f "$prefix"/lib/libosmp.so*
  flags=(--static --cflags --libs)
fi
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cflags=$(pkg-config --cflags osmp)
if grep -q -- '-std=' <<<"$cflags"; then
  echo "osmp.pc: Cflags carry a language flag: $cflags" >&2; exit 1
fi
echo "pkg-config ${flags[*]} osmp: $(pkg-config "${flags[@]}" osmp)"
cc -Wall -Wextra -Werror -o "$work/allreduce_c" "$examples/allreduce.c" $(pkg-config "${flags[@]}" osmp)
c++ -std=c++20 -Wall -Werror -o "$work/allreduce_cpp" "$examples/allreduce.cpp" $(pkg-config "${flags[@]}" osmp)
c++ -std=c++20 -o "$work/consumer" "$project/main.cpp" $(pkg-config "${flags[@]}" osmp)
if [ "$mode" = static ]; then
  for exe in allreduce_c allreduce_cpp consumer; do
    if readelf -d "$work/$exe" | grep -q 'NEEDED.*libosmp'; then
      echo "$exe: linked against a shared libosmp:" >&2; readelf -d "$work/$exe" >&2; exit 1
    fi
  done
fi
expect "consumer: 1 rank, allreduce 1 2 3" env LD_LIBRARY_PATH="$prefix/lib" "$work/consumer"
run_examples "$prefix" "$work/allreduce_c" "$work/allreduce_cpp"
