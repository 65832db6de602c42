#!/usr/bin/env bash
# check_layering.sh: every folder includes only itself and the layers below it
# (DESIGN.md), and no library folder except mpi_glue/ includes mpi.h. The
# MPI tests and the baseline benchmark (bench/coll_bench.c, built against
# Open MPI and MPICH for side-by-side runs) sit above every layer.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# folder: the project folders it may include from (besides itself)
declare -A allowed=(
  [core]=""
  [topology]="core"
  [virtual_hier]="core topology"
  [shm]="core"
  [team]="core topology virtual_hier shm"
  [collectives]="core topology virtual_hier shm team"
  [tuning]="core topology virtual_hier shm team collectives"
  [launcher]="core topology virtual_hier shm team"
  [api]="core topology virtual_hier shm team collectives tuning"
  [mpi_glue]="core topology virtual_hier shm team collectives tuning launcher api"
  [tools]="core topology virtual_hier shm team collectives tuning launcher api mpi_glue"
)
layers="core topology virtual_hier shm team collectives tuning launcher api mpi_glue tools"
bad=0
for dir in "${!allowed[@]}"; do
  [ -d "$dir" ] || continue
  ok=" $dir ${allowed[$dir]} "
  while IFS= read -r line; do
    file=${line%%:*}
    inc=$(sed -E 's/.*#include "([^/"]+)\/.*/\1/' <<<"$line")
    case " $layers " in *" $inc "*) ;; *) continue ;; esac
    case "$ok" in *" $inc "*) ;; *) echo "layering: $file includes $inc/ (allowed: ${allowed[$dir]:-nothing})"; bad=1 ;; esac
  done < <(grep -rHE '#include "[a-z_]+/' "$dir" --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.c')
done
if grep -rlE '#include ?<mpi\.h>|#include ?"mpi\.h"' --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.c' . |
   grep -vE '^\./(mpi_glue|build[^/]*|tests/mpi|bench)/'; then
  echo "layering: the files above include mpi.h outside mpi_glue/"
  bad=1
fi
exit $bad
