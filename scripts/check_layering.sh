#!/usr/bin/env bash
# check_layering.sh: every folder includes only itself and the layers below it
# (docs/design.md, rule 1). The public headers live in api/; a bare include
# of one counts as the layer that implements it ("osmp.hpp", "osmp.h": api/;
# "osmp_mpi.h": mpi_glue/), except the vocabulary (osmp_ops.h,
# osmp_base.hpp), which sits below core/ and every layer may include. A public
# header includes only public headers (and the system's, MPI's for
# osmp_mpi.h); api/'s other headers are never included bare from outside it
# (api/ is on every layer's include path, for the public headers). Outside mpi_glue/ nothing includes MPI, outside topology/
# nothing includes hwloc (the MPI tests and the baseline benchmarks, built
# against Open MPI and MPICH for side-by-side runs, sit above every layer).
# Reads the sources git tracks (never a build folder); fails when it finds none.
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
declare -A public=([osmp.h]=api [osmp.hpp]=api [osmp_mpi.h]=mpi_glue [osmp_ops.h]=vocabulary
                   [osmp_base.hpp]=vocabulary)
if ! files=$(git ls-files -- '*.hpp' '*.cpp' '*.h' '*.c') || [ -z "$files" ]; then
  echo "layering: no tracked sources (not a git checkout?)"
  exit 1
fi
bad=0
say() { echo "layering: $*"; bad=1; }
declare -A api_files=()
while IFS= read -r f; do api_files[${f#api/}]=1; done < <(grep '^api/[^/]*$' <<<"$files")
while IFS= read -r line; do
  file=${line%%:*}
  dir=${file%%/*}
  inc=$(sed -nE 's/^[^#]*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"].*/\1/p' <<<"${line#*:}")
  [ -n "$inc" ] || continue
  while [[ $inc == ../* ]]; do inc=${inc#../}; done
  base=${file##*/}
  if [[ $dir == api && -n "${public[$base]+x}" ]]; then  # a public header
    case "$inc" in
      mpi.h) [ "$base" = osmp_mpi.h ] || say "$file includes $inc (a public header includes MPI only in osmp_mpi.h)" ;;
      */*) say "$file includes $inc (a public header includes only public and system headers)" ;;
      *) [[ $line == *'#'*include*'"'* && -z "${public[$inc]+x}" ]] &&
           say "$file includes \"$inc\" (a public header includes only public and system headers)" ;;
    esac
    continue
  fi
  case "$inc" in
    hwloc.h | hwloc/*)
      case "$file" in topology/* | tests/mpi/* | bench/*) ;; *) say "$file includes $inc (only topology/ may include hwloc)" ;; esac
      continue ;;
    mpi.h | mpio.h | mpi_[!/]*.h)
      case "$file" in mpi_glue/* | tests/mpi/* | bench/*) ;; *) say "$file includes $inc (only mpi_glue/ may include MPI)" ;; esac
      continue ;;
  esac
  [ -n "${allowed[$dir]+x}" ] || continue
  if [[ $inc == */* ]]; then
    folder=${inc%%/*}
  elif [ -n "${public[$inc]+x}" ]; then
    folder=${public[$inc]}  # a bare include of a public header
    [ "$folder" = vocabulary ] && continue
  elif [[ $dir != api && $line == *'#'*include*'"'* && -n "${api_files[$inc]+x}" ]]; then
    # api/ is on every layer's include path (for the public headers): a
    # bare include of one of its internal headers would compile.
    say "$file includes \"$inc\" (api/'s internal header; only the public ones go bare)"
    continue
  else
    continue  # the folder's own file or a system/external header
  fi
  case "$layers" in *" $folder "*) ;; *) continue ;; esac
  case " $dir ${allowed[$dir]} " in
    *" $folder "*) ;;
    *) say "$file includes $inc from $folder/ (allowed: ${allowed[$dir]:-nothing})" ;;
  esac
done < <(tr '\n' '\0' <<<"$files" | xargs -0r grep -HE '^[[:space:]]*#[[:space:]]*include')
exit $bad
