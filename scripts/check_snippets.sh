#!/usr/bin/env bash
# check_snippets.sh: every code block in README.md, CONTRIBUTING.md and docs/*.md compiles (or
# parses), and every relative link and repository path they name exists
# (CTest cli.snippets). Run it from anywhere; it reads the checkout it is in.
#
# Fenced blocks, by the tag after the opening ```:
#   c             gcc -std=c11 -fsyntax-only -Wall -Werror
#   cpp, c++      g++ -std=c++20 -fsyntax-only -Wall -Werror
#   sh, bash      bash -n, and the repository files it names exist
#                 (scripts/..., examples/..., docs/...)
#   cmake         parsed by cmake -P inside if(FALSE): syntax only
#   text, console not code (output, usage lines, a session): skipped
#   anything else, or no tag: an error. So is an indented code block: every
#   block says what it is.
# Include path: -I api (the public headers only, as an installed osmp gives
# them), plus the MPI's own (mpicc.openmpi -showme:compile, else
# pkg-config ompi-c or mpich) for a block that names mpi.h, osmp_mpi.h, MPI_
# or MPIX_; without an MPI those blocks are reported as skipped.
#
# Whole programs and fragments. A C or C++ block with a main() is compiled as
# written. Any other block is a fragment: it gets a prelude (C: <osmp.h>,
# <stdio.h>, <stdlib.h>, <string.h>; C++: <osmp.hpp>, <cstdio>, <vector>,
# <span>; <osmp_mpi.h> too when it uses MPI), its own #include lines stay at
# file scope, and the rest becomes the body of a function (C: `int
# snippet(void) { ... return 0; }`, C++: `osmp::Status snippet() { ...
# return {}; }`), compiled without the unused-variable warnings (a fragment
# is part of a program). The names a fragment uses without declaring them
# come from an HTML comment on the line right before the fence, which the
# rendered page does not show:
#
#   <!-- snippet: osmp_team* team; double x = 1, sum; -->
#   ```c
#   osmp_allreduce(team, &x, &sum, 1, OSMP_INT64, OSMP_SUM);
#   ```
#
# Its text goes at the top of the function body. `<!-- snippet: file -->`
# compiles a block without a main() as a whole file (declarations only).
#
# Links: every [text](target) whose target is not a URL must name a file or
# folder of the checkout (relative to the page), and a #anchor a heading of
# that page. Backquoted paths under the project's folders (`docs/heap.md`,
# `shm/layout.hpp`) must exist too; paths with <...>, {..}, * or ... are
# patterns and are left alone.
#
# Prints each failure as FILE:LINE and exits 1 if there is any.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pages=(README.md CONTRIBUTING.md)
for f in docs/*.md; do [ -e "$f" ] && pages+=("$f"); done

mpi_flags=""
if command -v mpicc.openmpi >/dev/null 2>&1; then
  mpi_flags=$(mpicc.openmpi -showme:compile 2>/dev/null)
elif pkg-config --exists ompi-c 2>/dev/null; then
  mpi_flags=$(pkg-config --cflags ompi-c)
elif pkg-config --exists mpich 2>/dev/null; then
  mpi_flags=$(pkg-config --cflags mpich)
fi

# 1. Cut the pages into blocks: $work/N.body, and a line per block in
# $work/index: N, tag, page, line of the fence, snippet comment.
awk -v out="$work" '
  FNR == 1 { infence = 0; prev = ""; prevblank = 1; lastnb = ""; inindent = 0 }
  {
    line = $0
    if (infence) {
      if (line ~ "^" indent "```[[:space:]]*$" || line ~ /^[[:space:]]*```[[:space:]]*$/) {
        infence = 0; close(body); prev = line; prevblank = 0; lastnb = line; next
      }
      sub("^" indent, "", line)
      print line > body
      next
    }
    if (match(line, /^[[:space:]]*```/)) {
      indent = substr(line, 1, RLENGTH - 3)
      tag = substr(line, RLENGTH + 1)
      gsub(/[[:space:]]/, "", tag)
      n++
      body = out "/" n ".body"
      printf "" > body
      marker = ""
      if (prev ~ /^[[:space:]]*<!-- snippet:.*-->[[:space:]]*$/) {
        marker = prev
        sub(/^[[:space:]]*<!-- snippet:[[:space:]]*/, "", marker)
        sub(/[[:space:]]*-->[[:space:]]*$/, "", marker)
        if (marker == "") marker = "-"
      }
      if (tag == "") tag = "-"
      if (marker == "") marker = "-"
      printf "%d\t%s\t%s\t%d\t%s\n", n, tag, FILENAME, FNR, marker > (out "/index")
      infence = 1; inindent = 0
      next
    }
    # An indented code block: four spaces after a blank line, not a list
    # item'"'"'s continuation.
    if (line ~ /^(    |\t)/ && prevblank && lastnb !~ /^[[:space:]]*([-*+]|[0-9]+\.)[[:space:]]/ && lastnb !~ /^[[:space:]]/ && lastnb != "") {
      if (!inindent) printf "%s:%d: indented code block: fence it and tag it (```sh, ```text, ...)\n", FILENAME, FNR > (out "/indented")
      inindent = 1
    } else if (line !~ /^[[:space:]]*$/) {
      inindent = 0
    }
    if (line !~ /^[[:space:]]*$/ && !inindent) lastnb = line
    prevblank = (line ~ /^[[:space:]]*$/)
    prev = line
  }
  END { close(out "/index") }
' "${pages[@]}"
touch "$work/index" "$work/indented"

uses_mpi() { grep -qE 'mpi\.h|osmp_mpi\.h|\bMPIX?_' "$1"; }

# 2. Build the file to compile for block N (C or C++) in $work/N.$ext; sets
# `flags` to the extra compiler flags.
make_source() {
  local n=$1 lang=$2 marker=$3 src=$4 page=$5 line=$6 b="$work/$1.body"
  flags=""
  if grep -qE '(^|[^[:alnum:]_])main[[:space:]]*\(' "$b" || [ "$marker" = file ]; then
    { printf '#line %d "%s"\n' $((line + 1)) "$page"; cat "$b"; } >"$src"
    return
  fi
  flags="-Wno-unused-variable -Wno-unused-but-set-variable -Wno-unused-function"
  {
    if [ "$lang" = c ]; then
      printf '#include <osmp.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n'
    else
      printf '#include <osmp.hpp>\n#include <cstdio>\n#include <span>\n#include <vector>\n'
    fi
    if uses_mpi "$b"; then printf '#include <osmp_mpi.h>\n'; fi
    grep -E '^[[:space:]]*#[[:space:]]*include' "$b"
    if [ "$lang" = c ]; then printf 'int snippet(void);\nint snippet(void) {\n'; else printf 'osmp::Status snippet();\nosmp::Status snippet() {\n'; fi
    if [ "$marker" != - ]; then printf '%s\n' "$marker"; fi
    printf '#line %d "%s"\n' $((line + 1)) "$page"
    grep -vE '^[[:space:]]*#[[:space:]]*include' "$b"
    if [ "$lang" = c ]; then printf 'return 0;\n}\n'; else printf 'return {};\n}\n'; fi
  } >"$src"
}

# 3. Check block N; on failure write $work/N.fail (the report).
check_block() {
  local n=$1 tag=$2 page=$3 line=$4 marker=$5 b="$work/$1.body" log="$work/$1.log" status=0
  local inc=(-I api)
  case "$tag" in
    c | cpp | c++)
      local lang=c ext=c cc=(gcc -std=c11)
      [ "$tag" = c ] || { lang=cpp; ext=cpp; cc=(g++ -std=c++20); }
      if uses_mpi "$b"; then
        if [ -z "$mpi_flags" ]; then echo "skip" >"$work/$n.skip"; return; fi
        # shellcheck disable=SC2206
        inc+=($mpi_flags -DOMPI_SKIP_MPICXX=1 -DMPICH_SKIP_MPICXX=1)
      fi
      local src="$work/$n.$ext" flags
      make_source "$n" "$lang" "$marker" "$src" "$page" "$line"
      # shellcheck disable=SC2086
      "${cc[@]}" -fsyntax-only -Wall -Werror $flags "${inc[@]}" "$src" >"$log" 2>&1 || status=1
      ;;
    sh | bash)
      bash -n "$b" >"$log" 2>&1 || status=1
      local p
      while IFS= read -r p; do
        [ -e "$p" ] || { echo "names $p, which does not exist" >>"$log"; status=1; }
      done < <(grep -oE '(^|[[:space:]=(])(\./)?(scripts|examples|docs|bench|packaging|tests|cmake|tools)/[A-Za-z0-9_./-]*[A-Za-z0-9_]' "$b" |
               sed -E 's/^[[:space:]=(]//; s|^\./||')
      ;;
    cmake)
      { echo "if(FALSE)"; cat "$b"; echo "endif()"; } >"$work/$n.cmake"
      cmake -P "$work/$n.cmake" >"$log" 2>&1 || status=1
      ;;
    text | console) return ;;
    -) echo "a fence without a tag: say what the block is (c, cpp, sh, cmake; text or console for the rest)" >"$log"; status=1 ;;
    *) echo "unknown tag '$tag' (c, cpp, c++, sh, bash, cmake, text, console)" >"$log"; status=1 ;;
  esac
  if [ "$status" != 0 ]; then
    local what="\`\`\`$tag block"
    [ "$tag" = - ] && what="untagged block"
    { echo "$page:$line: $what does not pass:"; sed 's/^/    /' "$b"; echo "  --"
      sed "s|$work/$n\.[a-z]*|block|g; s/^/  /" "$log"; } >"$work/$n.fail"
  fi
}

par=$(nproc 2>/dev/null || echo 2)
while IFS=$'\t' read -r n tag page line marker; do
  while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do wait -n; done
  check_block "$n" "$tag" "$page" "$line" "$marker" </dev/null &
done <"$work/index"
wait

failed=0
blocks=0
skipped=0
while IFS=$'\t' read -r n tag page line marker; do
  blocks=$((blocks + 1))
  if [ -e "$work/$n.fail" ]; then cat "$work/$n.fail"; failed=$((failed + 1)); fi
  if [ -e "$work/$n.skip" ]; then echo "$page:$line: skipped (no MPI headers found)"; skipped=$((skipped + 1)); fi
done <"$work/index"
if [ -s "$work/indented" ]; then
  cat "$work/indented"
  failed=$((failed + $(wc -l <"$work/indented")))
fi

# 4. Links and paths. GitHub's anchor of a heading: lower case, punctuation
# but - and _ dropped, spaces as -.
anchors() {
  awk '/^[[:space:]]*```/ { f = !f; next } !f && /^#+ / { sub(/^#+ +/, ""); print }' "$1" |
    tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}
links=0
bad_links=0
link_fail() { echo "$1"; bad_links=$((bad_links + 1)); }
for page in "${pages[@]}"; do
  dir=$(dirname "$page")
  # [text](target) outside fenced blocks; FNR kept for the report.
  while IFS=$'\t' read -r line target; do
    links=$((links + 1))
    case "$target" in http://* | https://* | mailto:*) continue ;; esac
    file=${target%%#*}
    anchor=""
    [[ $target == *"#"* ]] && anchor=${target#*#}
    if [ -z "$file" ]; then
      path=$page
    else
      path="$dir/$file"
      if [ ! -e "$path" ]; then link_fail "$page:$line: link to $target: no such file"; continue; fi
    fi
    if [ -n "$anchor" ] && [[ $path == *.md ]] && ! anchors "$path" | grep -qxF "$anchor"; then
      link_fail "$page:$line: link to $target: no heading '#$anchor' in $path"
    fi
  done < <(awk '/^[[:space:]]*```/ { f = !f; next }
                !f { s = $0
                     while (match(s, /\]\([^) ]+\)/)) { print FNR "\t" substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH) } }' "$page")
  # `path/of/a/file` in backquotes, outside fenced blocks, under a project folder.
  while IFS=$'\t' read -r line p; do
    case "$p" in *"<"* | *">"* | *"{"* | *"*"* | *"..."* | *"$"*) continue ;; esac
    p=${p%%:*}
    [ -e "$p" ] || link_fail "$page:$line: names \`$p\`, which does not exist"
  done < <(awk '/^[[:space:]]*```/ { f = !f; next }
                !f { s = $0
                     while (match(s, /`[^`]+`/)) {
                       t = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH)
                       if (t ~ /^(api|bench|cmake|collectives|core|docs|examples|launcher|mpi_glue|packaging|scripts|shm|team|tests|tools|topology|tuning|virtual_hier)\/[^ ]*$/) print FNR "\t" t
                     } }' "$page")
done

echo "snippets: $blocks blocks in ${#pages[@]} pages, $failed failed, $skipped skipped; $links links, $bad_links bad"
[ "$failed" = 0 ] && [ "$bad_links" = 0 ]
