#!/usr/bin/env bash
# deb.sh BUILD_DIR WORK_DIR EXAMPLES_DIR OMPI_PKGLIBDIR COMPONENT_INSTALL_DIR:
# builds the Debian packages (cpack -G DEB), unpacks them into a scratch root
# (dpkg -x), checks their names and file lists, loads coll/osmp with
# ompi_info from the unpacked Open MPI component directory, and builds and
# runs the C example against the unpacked root through its osmp.pc.
source "$(dirname "$0")/common.sh"
build=$1; work=$2; examples=$3; pkglibdir=$4; compdir=$5
rm -rf "$work"; mkdir -p "$work/root"
(cd "$build" && cpack -G DEB -B "$work/packages" > "$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; exit 1; }
shopt -s nullglob
debs=("$work"/packages/*.deb)
[ ${#debs[@]} -gt 0 ] || { echo "cpack made no .deb" >&2; exit 1; }
for deb in "${debs[@]}"; do
  echo "== $(basename "$deb"): $(dpkg-deb -f "$deb" Package) depends on: $(dpkg-deb -f "$deb" Depends)"
  dpkg -x "$deb" "$work/root"
done
root=$work/root
case $compdir in /*) ;; *) compdir=/usr/$compdir ;; esac
# package: files it must hold
declare -A want=(
  [libosmp1]="usr/lib/libosmp.so.1"
  [osmp-tools]="usr/bin/osmprun usr/bin/osmp-topo usr/bin/osmp-clean"
  [libosmp-dev]="usr/include/osmp.h usr/include/osmp_ops.h usr/include/osmp_base.hpp usr/include/osmp.hpp usr/include/osmp_mpi.h usr/lib/libosmp.so
                 usr/lib/pkgconfig/osmp.pc usr/lib/cmake/osmp/osmpConfig.cmake
                 usr/lib/cmake/osmp/osmpConfigVersion.cmake"
  [osmp-openmpi]="${compdir#/}/mca_coll_osmp.so usr/lib/libosmp_mpi.so.1 usr/lib/libosmp_pmpi.so.1
                  usr/lib/pkgconfig/osmp-mpi-ompi.pc usr/lib/cmake/osmp/osmp-mpi-ompiTargets.cmake"
  [osmp-mpich]="usr/lib/libosmp_mpi_mpich.so.1 usr/lib/pkgconfig/osmp-mpi-mpich.pc")
for pkg in "${!want[@]}"; do
  deb=("$work"/packages/"${pkg}"_*.deb)
  [ ${#deb[@]} -eq 1 ] || { echo "no package $pkg among: ${debs[*]##*/}" >&2; exit 1; }
  list=$(dpkg-deb -c "${deb[0]}" | awk '{print $6}' | sed 's,^\./,,')
  for f in ${want[$pkg]}; do
    grep -qx -- "$f" <<<"$list" || { echo "$pkg lacks $f; it holds:"; echo "$list"; exit 1; } >&2
  done
done
echo "coll/osmp in the package: $compdir (Open MPI's components: $pkglibdir)"
[ "$compdir" = "$pkglibdir" ] ||
  { echo "coll/osmp is not in Open MPI's own component directory: ompi_info would not find it" >&2; exit 1; }
# ompi_info reads the component path before its --mca options: the environment.
expect "MCA coll: osmp" env OMPI_MCA_mca_base_component_path="$root$compdir" ompi_info
export PKG_CONFIG_PATH=$root/usr/lib/pkgconfig
cc -Wall -Werror -o "$work/allreduce_c" "$examples/allreduce.c" $(pkg-config --cflags --libs osmp)
expect "sum of ranks 0..2 = 3" env LD_LIBRARY_PATH="$root/usr/lib" "$root/usr/bin/osmprun" -n 3 \
  --oversubscribe "$work/allreduce_c"
