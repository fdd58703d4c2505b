#!/bin/sh
# The engine's layers (src/): fails where a file of src/ includes a file
# of its own layer's peers or of a layer above it, where the #include
# graph among src/ has a cycle, or where a file of src/ has no layer.
# A function is called through its header (implicit declarations are
# errors), so a file that cannot include a layer cannot call it either.
#
# Usage: include-graph.sh SRCDIR
set -eu
src=${1:?usage: include-graph.sh SRCDIR}

# file unit rank: a file may include its own unit's files and those of
# units of a lower rank.  Bottom to top.
layers='
clf.h               api        0
clf-cuda-driver.h   api        0
clf-check.h         check      1
clf-error.c         check      1
clf-stats.c         stats      1
clf-views.h         views      2
clf-format.c        views      2
clf-catalogue.h     catalogue  2
clf-catalogue.c     catalogue  2
clf-devices.h       devices    2
clf-devices.c       devices    2
clf-cache.h         cache      2
clf-cache.c         cache      2
clf-geometry.h      geometry   3
clf-geometry.c      geometry   3
clf-engine-private.h engine    4
clf-engine.c        engine     4
clf-plan-private.h  plan       5
clf-plan.c          plan       5
clf-launch.c        plan       5
clf-frame.c         plan       5
clf-convolve.h      plan       5
clf-convolve.c      plan       5
clf-convert.c       plan       5
clf-gaussian.h      plan       5
clf-gaussian.c      plan       5
clf-cuda.h          cuda       5
clf-cuda.c          cuda       5
clf-private.h       tests      6
'

fail=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

for path in "$src"/*.c "$src"/*.h; do
  file=${path##*/}
  printf '%s %s\n' "$file" "$file" >>"$edges"
  # The quoted includes that name a file of src/ (generated ones and
  # config.h live elsewhere).
  for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$path"); do
    [ -e "$src/$inc" ] || continue
    printf '%s %s\n' "$inc" "$file" >>"$edges"
  done
done

# Every file has a layer; every include goes to its unit or one below.
printf '%s\n' "$layers" | awk -v edges="$edges" '
  NF == 3 { unit[$1] = $2; rank[$1] = $3 }
  END {
    bad = 0
    while ((getline line < edges) > 0) {
      split(line, e, " ")
      inc = e[1]; file = e[2]
      if (!(file in unit)) {
        if (!(file in told)) {
          print file ": no layer; add it to tests/include-graph.sh"
          told[file] = 1; bad = 1
        }
        continue
      }
      if (inc == file || !(inc in unit))
        continue
      if (unit[inc] != unit[file] && rank[inc] >= rank[file]) {
        print file " (" unit[file] ", layer " rank[file] ") includes " inc \
            " (" unit[inc] ", layer " rank[inc] "): not below it"
        bad = 1
      }
    }
    exit bad
  }' || fail=1

# No cycle among the includes (tsort fails on a loop and names it).
if ! tsort "$edges" >/dev/null; then
  echo "the #include graph of $src has a cycle (above)"
  fail=1
fi

[ "$fail" -eq 0 ] && echo "include graph of $src: layered, no cycle"
exit "$fail"
