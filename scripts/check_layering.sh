#!/usr/bin/env bash
# check_layering.sh: every folder includes only itself and the layers below it
# (docs/design.md, rule 1); a bare include of a public header ("osmp.hpp", "osmp.h",
# "osmp_mpi.h") counts as api/; only topology/ includes hwloc and only
# mpi_glue/ includes MPI. Reads the sources git tracks (never a build
# folder). The MPI tests and the baseline benchmarks (built against Open MPI
# and MPICH for side-by-side runs) sit above every layer.
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
layers=" core topology virtual_hier shm team collectives tuning launcher api mpi_glue tools "
public=" osmp.h osmp.hpp osmp_mpi.h "
bad=0
say() { echo "layering: $*"; bad=1; }
while IFS= read -r line; do
  file=${line%%:*}
  dir=${file%%/*}
  [ -n "${allowed[$dir]+x}" ] || continue
  inc=$(sed -nE 's/^[^#]*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"].*/\1/p' <<<"${line#*:}")
  [ -n "$inc" ] || continue
  case "$inc" in
    hwloc.h | hwloc/*) [ "$dir" = topology ] || say "$file includes $inc (only topology/ may include hwloc)"; continue ;;
    mpi.h | mpi_*.h | mpio.h) [ "$dir" = mpi_glue ] || say "$file includes $inc (only mpi_glue/ may include MPI)"; continue ;;
  esac
  if [[ $inc == */* ]]; then
    folder=${inc%%/*}
  elif [[ $public == *" $inc "* ]]; then
    folder=api  # a bare include of a public header
  else
    continue  # the folder's own file or a system/external header
  fi
  case "$layers" in *" $folder "*) ;; *) continue ;; esac
  ok=" $dir ${allowed[$dir]} "
  case "$ok" in *" $folder "*) ;; *) say "$file includes $inc from $folder/ (allowed: ${allowed[$dir]:-nothing})" ;; esac
done < <(git ls-files -- '*.hpp' '*.cpp' '*.h' '*.c' | grep -E "^($(tr ' ' '\n' <<<"$layers" | grep . | paste -sd'|'))/" |
         xargs grep -HE '^[[:space:]]*#[[:space:]]*include')
exit $bad
