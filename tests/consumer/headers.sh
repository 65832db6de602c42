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
# A program's own macros named like osmp_ops.h's forms (`buffer`, `pairs`,
# ...) do not reach the declarations generated from its rows.
forms=(-Dnone=1 -Dbuffer=2 -Duniform=3 -Dgathered=4 -Dscattered=5 -Dshares=6 -Dpairs=7)
printf '#include <osmp.h>\n' >"$work/forms.src"
cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$inc" "${forms[@]}" -x c "$work/forms.src"
# (C++: osmp.hpp names enumerators `none`, as any header may name its own.)
printf '#include <osmp.hpp>\n' >"$work/forms.src"
c++ -std=c++20 -Wall -Wextra -Werror -fsyntax-only -I"$inc" "${forms[@]:1}" -x c++ "$work/forms.src"
echo "osmp.h and osmp.hpp compile beside macros named like the forms"
