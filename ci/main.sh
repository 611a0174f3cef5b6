#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's main command: install what is missing, build Release, and run takyon-report's quick
# report (<= 5 minutes on a 2-core machine, after the build): the path API over every provider with
# ucx_perftest beside the Ucx ones, and the MPI benchmarks under libtakyon_mpi (takyon-run) and
# Open MPI (mpirun, default and best local configurations), interleaved. The HTML report with its
# plots, the CSV/JSON, the machine description and every run's raw output go to results/ or the
# directory given as the first argument; further arguments go to takyon-report (e.g. --full).
#
#   bash ci/main.sh                     # -> results/takyon-report.html
#   bash ci/main.sh /tmp/run1 --full    # -> /tmp/run1, complete sweeps
#   bash ci/main.sh results --compare old/takyon-report.json
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
REPORT="$ROOT/$BUILD/bin/takyon-report"

takyon_ci_install_packages

takyon_ci_log "configure $BUILD (Release, tests off)"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTAKYON_SANITIZE= -DTAKYON_WITH_UCX=ON -DTAKYON_BUILD_TESTS=OFF \
  -DTAKYON_BUILD_EXAMPLES=OFF -DTAKYON_BUILD_BENCH=ON >"$RESULTS/configure.log" 2>&1 ||
  { cat "$RESULTS/configure.log"; exit 1; }
takyon_ci_log "build (-j$JOBS), log in $RESULTS/build.log"
cmake --build "$BUILD" -j "$JOBS" >"$RESULTS/build.log" 2>&1 || { tail -n 80 "$RESULTS/build.log"; exit 1; }
if [ ! -x "$REPORT" ]; then
  echo "takyon-ci: $REPORT was not built" >&2
  exit 1
fi

takyon_ci_log "takyon-report --out-dir $RESULTS $*"
"$REPORT" --out-dir "$RESULTS" "$@"
takyon_ci_log "report: $RESULTS/takyon-report.html; files:"
ls -l "$RESULTS"
