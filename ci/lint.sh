#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The static checks of the test command (ci/test.sh's "lint" configuration), also runnable alone:
#   1. every tracked C and C++ file is formatted as .clang-format says (clang-format 14);
#   2. clang-tidy with .clang-tidy over the libraries' sources (common/, core/, ucx_backend/,
#      mpi_compat/), from a configure-only build directory's compile_commands.json.
# Prints each finding; exits 1 if there is any. Needs the packages of ci/common.sh (clang-format,
# clang-tidy). TAKYON_CI_JOBS: parallel clang-tidy processes (default 2).
#
#   bash ci/lint.sh              # both
#   bash ci/lint.sh format       # only the formatting
#   bash ci/lint.sh tidy [FILE...]   # only clang-tidy (on FILEs if given)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
what="${1:-all}"
[ $# -gt 0 ] && shift
status=0

if [ "$what" = all ] || [ "$what" = format ]; then
  mapfile -t sources < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
  if ! clang-format --dry-run --Werror "${sources[@]}" >build-lint-format.log 2>&1; then
    echo "lint: files not formatted as .clang-format says (fix: clang-format -i <file>):"
    grep -oE '^[^:]+\.(c|h|cpp|hpp):' build-lint-format.log | sort -u | sed 's/:$//; s/^/  /'
    head -n 40 build-lint-format.log
    status=1
  else
    echo "lint: ${#sources[@]} C and C++ files formatted"
  fi
  rm -f build-lint-format.log
fi

if [ "$what" = all ] || [ "$what" = tidy ]; then
  dir=build/lint
  if ! cmake -S . -B "$dir" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DTAKYON_SANITIZE= >"$dir.configure.log" 2>&1; then
    cat "$dir.configure.log"
    exit 1
  fi
  rm -f "$dir.configure.log"
  if [ $# -gt 0 ]; then
    files=("$@")
  else
    mapfile -t files < <(git ls-files 'common/*.cpp' 'core/*.cpp' 'ucx_backend/*.cpp' 'mpi_compat/*.cpp')
  fi
  jobs="${TAKYON_CI_JOBS:-2}"
  log="$dir/clang-tidy.log"
  printf '%s\n' "${files[@]}" | xargs -P "$jobs" -n 4 clang-tidy -p "$dir" --quiet >"$log" 2>/dev/null
  findings="$(grep -cE ': (warning|error): ' "$log")"
  if [ "$findings" -gt 0 ]; then
    echo "lint: clang-tidy found $findings problem(s) in ${#files[@]} files:"
    grep -E ': (warning|error): ' -A3 "$log" | head -n 200
    status=1
  else
    echo "lint: clang-tidy clean on ${#files[@]} files"
  fi
fi
exit $status
