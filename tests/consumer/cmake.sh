#!/usr/bin/env bash
# cmake.sh PREFIX PROJECT_DIR EXAMPLES_DIR WORK_DIR: find_package(osmp) from
# an installed PREFIX builds the C and C++ examples and a program on the
# public C++ API, then runs them; the installed headers are the public ones
# only, and each compiles alone.
source "$(dirname "$0")/common.sh"
prefix=$1; project=$2; examples=$3; work=$4
rm -rf "$work"
cmake -S "$project" -B "$work" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DOSMP_EXAMPLES="$examples" \
  > "$work.configure.log" 2>&1 || { cat "$work.configure.log"; exit 1; }
cmake --build "$work"
"$(dirname "$0")/headers.sh" "$prefix" "$work/headers"
expect "consumer: 1 rank, allreduce 1 2 3" env LD_LIBRARY_PATH="$prefix/lib" "$work/consumer"
run_examples "$prefix" "$work/allreduce_c" "$work/allreduce_cpp"
