#!/usr/bin/env bash
# run.sh BUILD_DIR PROJECT_DIR WORK_DIR
set -eu
build=$1; project=$2; work=$3
rm -rf "$work"; mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$project" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
LD_LIBRARY_PATH="$work/prefix/lib" "$work/build/consumer" rome 128
# pkg-config: the same program, compiled by hand.
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
c++ -o "$work/consumer-pc" "$project/main.cpp" $(pkg-config --cflags --libs osmp)
LD_LIBRARY_PATH="$work/prefix/lib" "$work/consumer-pc" cascadelake 56
