#!/usr/bin/env bash
# mpi.sh PREFIX MPI_PROJECT_DIR EXAMPLES_DIR WORK_DIR FLAVOUR MPIRUN...:
# examples/hsplit_walk.c against libosmp_mpi for one MPI flavour (ompi,
# mpich) from an installed PREFIX, built three ways: plain cc through
# osmp-mpi-FLAVOUR.pc (which requires the MPI's own module), CMake
# find_package(osmp COMPONENTS mpi) after find_package(MPI) found that MPI,
# and with OSMP_MPI_FLAVOUR naming it; each runs on 2 simulated nodes.
source "$(dirname "$0")/common.sh"
prefix=$1; project=$2; examples=$3; work=$4; flavour=$5; shift 5
rm -rf "$work"; mkdir -p "$work"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc -Wall -Werror -o "$work/walk-pc" "$examples/hsplit_walk.c" $(pkg-config --cflags --libs "osmp-mpi-$flavour")
declare -A mpicc=([ompi]=mpicc.openmpi [mpich]=mpicc.mpich)
cmake -S "$project" -B "$work/findmpi" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DOSMP_EXAMPLES="$examples" \
  -DWITH_FIND_MPI=ON -DMPI_C_COMPILER="${mpicc[$flavour]}" -DEXPECT_FLAVOUR="$flavour" \
  > "$work/findmpi.log" 2>&1 || { cat "$work/findmpi.log"; exit 1; }
cmake -S "$project" -B "$work/named" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DOSMP_EXAMPLES="$examples" \
  -DOSMP_MPI_FLAVOUR="$flavour" -DEXPECT_FLAVOUR="$flavour" \
  > "$work/named.log" 2>&1 || { cat "$work/named.log"; exit 1; }
for exe in "$work/walk-pc" "$work/findmpi/hsplit_walk" "$work/named/hsplit_walk"; do
  [ "$exe" = "$work/walk-pc" ] || cmake --build "$(dirname "$exe")"
  expect "rank   3: world(4) > Machine 1/2 (2) > L2Cache 1/2 (1)" \
    env LD_LIBRARY_PATH="$prefix/lib" OSMP_SIM_RANKS_PER_NODE=2 OSMP_TOPOLOGY=cascadelake "$@" -np 4 "$exe"
done
