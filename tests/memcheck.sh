#!/usr/bin/env bash
# valgrind's memcheck over an engine group: the memcheck suite
# (tests/meson.build).
#
# Usage: tests/memcheck.sh VALGRIND SUPPRESSIONS TEST-ENGINE GROUP
#
# valgrind hides AVX-512, so PoCL takes its AVX2 kernel library there and
# would compile every kernel again under valgrind's emulation, for minutes.
# The group runs natively first with that library (POCL_KERNELLIB_NAME) and
# the same seed, so that valgrind's run finds the programs in the engine's
# binary cache and their kernels in PoCL's.
#
# GROUP cache-start: a start of an engine under valgrind with an empty
# cache, which builds its programs from source and stores them, then a
# second start, which loads them: the other groups' runs under valgrind
# only load what their native runs stored.
set -euo pipefail
valgrind=$1
suppressions=$2
engine=$3
group=$4

under_valgrind() {
  "$valgrind" --error-exitcode=99 --leak-check=full --num-callers=40 \
    --errors-for-leak-kinds=definite,indirect,possible \
    --suppressions="$suppressions" --quiet "$engine" "$@"
}

if [ "$group" = cache-start ]; then
  XDG_CACHE_HOME=$(mktemp -d)
  export XDG_CACHE_HOME
  trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
  for want in 'stores [1-9]' 'loads [1-9]'; do
    said=$(under_valgrind cache-start)
    echo "$said"
    if ! grep -q "^cache-start: .*$want" <<<"$said"; then
      echo "memcheck.sh: expected a start that $want (above)" >&2
      exit 1
    fi
  done
  exit 0
fi

if [ -z "${CLF_TEST_SEED:-}" ]; then
  CLF_TEST_SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
fi
export CLF_TEST_SEED POCL_KERNELLIB_NAME=avx2

native_log=$(mktemp)
trap 'rm -f "$native_log"' EXIT
if ! "$engine" "$group" >"$native_log" 2>&1; then
  cat "$native_log"
  echo "memcheck.sh: $group failed without valgrind (above)" >&2
  exit 1
fi

under_valgrind "$group"
