#!/usr/bin/env bash
# cmake.sh PREFIX PROJECT_DIR EXAMPLES_DIR WORK_DIR: find_package(osmp) from
# an installed PREFIX builds the C and C++ examples and a program on the
# tree-building headers, then runs them.
source "$(dirname "$0")/common.sh"
prefix=$1; project=$2; examples=$3; work=$4
rm -rf "$work"
cmake -S "$project" -B "$work" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DOSMP_EXAMPLES="$examples" \
  > "$work.configure.log" 2>&1 || { cat "$work.configure.log"; exit 1; }
cmake --build "$work"
expect "consumer: 128 ranks" env LD_LIBRARY_PATH="$prefix/lib" "$work/consumer" rome 128
run_examples "$prefix" "$work/allreduce_c" "$work/allreduce_cpp"
