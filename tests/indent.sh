#!/usr/bin/env bash
# Formats the C sources as GStreamer's gst-indent does (GNU indent with
# its options), or checks that they are: the formatting check of the
# quick tier.
#
# Usage: tests/indent.sh          reformat every .c file git tracks, or
#                                 would (untracked, not ignored), in place
#        tests/indent.sh --check  reformat a copy; fail and show the diff
#                                 where a file is not formatted
#
# As GStreamer's pre-commit hook, it takes the .c files only: headers and
# the OpenCL C in kernels/ are left as written.  What indent cannot read
# (designated initializers in compound literals, some struct members that
# are function pointers) stays between /* *INDENT-OFF* */ and
# /* *INDENT-ON* */, as in GStreamer's own sources.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

if ! command -v indent > /dev/null; then
  echo "tests/indent.sh: GNU indent is missing (tests/install-deps.sh installs it)" >&2
  exit 1
fi

if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard \
    '*.c' | grep -v '^kernels/')
else
  mapfile -t files < <(find examples gst src tests -name '*.c' | sort)
fi
options=(--braces-on-if-line --case-brace-indentation0 --case-indentation2
  --braces-after-struct-decl-line --line-length80 --no-tabs --cuddle-else
  --dont-line-up-parentheses --continuation-indentation4 --honour-newlines
  --tab-size8 --indent-level2 --leave-preprocessor-space)

format () {
  # Twice: one pass of GNU indent is not always idempotent.
  VERSION_CONTROL=none indent "${options[@]}" "$@"
  VERSION_CONTROL=none indent "${options[@]}" "$@"
}

if [ "${1:-}" != --check ]; then
  format "${files[@]}"
  exit 0
fi

copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
for f in "${files[@]}"; do
  mkdir -p "$copy/$(dirname "$f")"
  cp "$f" "$copy/$f"
done
(cd "$copy" && format "${files[@]}")
status=0
for f in "${files[@]}"; do
  diff -u --label "a/$f" --label "b/$f" "$f" "$copy/$f" || status=1
done
if [ $status != 0 ]; then
  echo "tests/indent.sh: not formatted as gst-indent formats (the diff above);" \
    "run tests/indent.sh to format them" >&2
fi
exit $status
