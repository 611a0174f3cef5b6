#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's main command: install what is missing, build Release, run takyon-bench over every
# provider (and UCX's ucx_perftest beside the Ucx ones) and print its report. Results (takyon-bench's CSV/JSON via --out-dir, plus the printed
# report) go to results/ or the directory given as the first argument; further arguments go to
# takyon-bench (e.g. --quick).
#
#   bash ci/main.sh                     # -> results/
#   bash ci/main.sh /tmp/run1 --quick   # -> /tmp/run1, extra takyon-bench arguments
#
# Environment: TAKYON_CI_JOBS (build jobs, default 2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=ci/common.sh
source ci/common.sh

RESULTS="${1:-results}"
[ $# -gt 0 ] && shift
mkdir -p "$RESULTS"
RESULTS="$(cd "$RESULTS" && pwd)"
JOBS="${TAKYON_CI_JOBS:-2}"
BUILD=build/release
BENCH="$ROOT/$BUILD/bench/takyon-bench"

takyon_ci_install_packages

takyon_ci_log "configure $BUILD (Release, tests off)"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTAKYON_SANITIZE= -DTAKYON_WITH_UCX=ON -DTAKYON_BUILD_TESTS=OFF \
  -DTAKYON_BUILD_EXAMPLES=OFF -DTAKYON_BUILD_BENCH=ON >"$RESULTS/configure.log" 2>&1 ||
  { cat "$RESULTS/configure.log"; exit 1; }
takyon_ci_log "build (-j$JOBS), log in $RESULTS/build.log"
cmake --build "$BUILD" -j "$JOBS" >"$RESULTS/build.log" 2>&1 || { tail -n 80 "$RESULTS/build.log"; exit 1; }
if [ ! -x "$BENCH" ]; then
  echo "takyon-ci: $BENCH was not built" >&2
  exit 1
fi

# --vs-ucx-perftest: the Ucx configurations are also measured against UCX's own ucx_perftest,
# in turns with them (ucx-utils is in the package list).
takyon_ci_log "takyon-bench --provider all --vs-ucx-perftest --out-dir $RESULTS $*"
"$BENCH" --provider all --vs-ucx-perftest --out-dir "$RESULTS" "$@" 2>&1 | tee "$RESULTS/takyon-bench-report.txt"
takyon_ci_log "report: $RESULTS/takyon-bench-report.txt; files:"
ls -l "$RESULTS"
