#!/usr/bin/env bash
# headers.sh PREFIX WORK_DIR: the installed include directory holds the public
# headers and nothing else (no internal header is reachable), and each one
# compiles alone: the C headers as C11 and as C++20, the C++ ones as C++20.
set -euo pipefail
prefix=$1; work=$2
inc=$prefix/include
rm -rf "$work"; mkdir -p "$work"
# The public headers (api/CMakeLists.txt), and osmp_mpi.h where libosmp_mpi
# was installed with it (a build with an MPI: mpi_glue/mpi/).
want="osmp.h osmp.hpp osmp_base.hpp osmp_ops.h"
if compgen -G "$prefix/lib/libosmp_mpi*.so" >/dev/null; then want="osmp.h osmp.hpp osmp_base.hpp osmp_mpi.h osmp_ops.h"; fi
have=$(cd "$inc" && find . -mindepth 1 | sed 's,^\./,,' | sort | tr '\n' ' ')
[ "$have" = "$want " ] || { echo "installed in $inc: '$have', want only: '$want'" >&2; exit 1; }
# osmp_mpi.h as its pkg-config file gives it (the MPI's flags, no MPI C++ bindings).
mpi_flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags osmp-mpi-ompi 2>/dev/null ||
            PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags osmp-mpi-mpich)
for h in $want; do
  printf '#include <%s>\n' "$h" >"$work/alone.src"
  extra=()
  [ "$h" = osmp_mpi.h ] && read -r -a extra <<<"$mpi_flags"
  case $h in
    *.h)
      cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$inc" "${extra[@]}" -x c "$work/alone.src"
      c++ -std=c++20 -Wall -Wextra -Werror -fsyntax-only -I"$inc" "${extra[@]}" -x c++ "$work/alone.src" ;;
    *.hpp)
      c++ -std=c++20 -Wall -Wextra -Werror -fsyntax-only -I"$inc" -x c++ "$work/alone.src" ;;
  esac
  echo "$h compiles alone"
done
