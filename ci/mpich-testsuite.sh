#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# MPICH's own test suite (test/mpi of Debian 12's mpich source package) as a conformance yardstick:
# every testlist entry of the chosen directories is built and run under libtakyon_mpi (takyon-run)
# and under Open MPI (mpirun), and the tests that Open MPI passes and Takyon does not are compared
# with tests/mpich/expected-failures.txt.
#
#   bash ci/mpich-testsuite.sh                  # every directory, both libraries
#   bash ci/mpich-testsuite.sh --quick          # a subset of a few minutes (see QUICK_DIRS)
#   bash ci/mpich-testsuite.sh --update-list    # rerun Takyon, rewrite the expected-failure list
#
# Options:
#   --dirs a,b          directories of test/mpi to run (default: all of ALL_DIRS)
#   --quick             the directories of QUICK_DIRS
#   --lists a,b         testlists read in each directory (default testlist; testlist.dtp adds the
#                       generated datatype-pool tests of pt2pt, coll and attr)
#   --timeout S         seconds a test may run, scaled by its timeLimit= (default 60)
#   --jobs N            parallel build jobs (default TAKYON_CI_JOBS or 2); tests run one at a time
#   --work-dir DIR      where the source, build trees, logs and results go (default build/mpich-testsuite)
#   --prefix DIR        an installed Takyon to test (default: build this tree and install it into
#                       the work dir)
#   --rerun-ompi        run the Open MPI side even if the work dir has its results for these
#                       directories (by default they are reused: Open MPI does not change)
#   --reconfigure       configure the test suite's build trees again
#   --rerun-failed      run only the tests that failed (or have no result) in the work dir's last
#                       results, keeping the others' (e.g. to check timeouts on a quiet machine)
#   --update-list       rewrite tests/mpich/expected-failures.txt from this run
#   --strict-list       also fail when a listed test passes now
# Exit status: 0 when every test that Open MPI passes passes under Takyon or is in the list.
# Output: a table per directory; results.csv and results.json (one row per test: directory, np,
# result, seconds and reason for each library) and every run's log under the work dir.
# Needs root (or sudo) only for what is missing: the deb-src entry, apt-get update, packages.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=ci/common.sh
source ci/common.sh

ALL_DIRS=pt2pt,coll,comm,datatype,group,init,errhan,topo,info,attr,threads,rma
# The quick subset: the small directories (groups, initialization, error handlers, topologies,
# info objects, attributes), a few minutes for both libraries once Takyon is built and the
# suite configured. Left out: pt2pt, coll, datatype and threads (large), and comm, whose
# nonblocking duplications run into the timeout under Open MPI.
QUICK_DIRS=group,init,errhan,topo,info,attr
DIRS=$ALL_DIRS
LISTS=testlist
TIMEOUT=60
JOBS="${TAKYON_CI_JOBS:-2}"
WORK="$ROOT/build/mpich-testsuite"
PREFIX=""
RERUN_OMPI=0
RECONFIGURE=0
REPORT_ARGS=()
RUN_ARGS=()
LIST="$ROOT/tests/mpich/expected-failures.txt"

usage() { sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --dirs) DIRS=$2; shift ;;
    --quick) DIRS=$QUICK_DIRS ;;
    --lists) LISTS=$2; shift ;;
    --timeout) TIMEOUT=$2; shift ;;
    --jobs) JOBS=$2; shift ;;
    --work-dir) WORK=$(mkdir -p "$2" && cd "$2" && pwd); shift ;;
    --prefix) PREFIX=$(cd "$2" && pwd); shift ;;
    --rerun-ompi) RERUN_OMPI=1 ;;
    --reconfigure) RECONFIGURE=1 ;;
    --rerun-failed) RUN_ARGS+=(--rerun-failed) ;;
    --update-list) REPORT_ARGS+=(--update-list) ;;
    --strict-list) REPORT_ARGS+=(--strict-list) ;;
    -h | --help) usage; exit 0 ;;
    *) echo "mpich-testsuite: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$WORK"
START=$SECONDS

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "mpich-testsuite: '$*' needs root" >&2
    return 1
  fi
}

# --- The packages, the source package ----------------------------------------------------------
takyon_ci_install_these "${TAKYON_CI_MPICH_PACKAGES[@]}"

SRC_PARENT="$WORK/src"
# find_source: test/mpi of the unpacked source package, nothing when there is none yet.
find_source() {
  [ -d "$SRC_PARENT" ] || return 0
  find "$SRC_PARENT" -mindepth 3 -maxdepth 3 -path '*/test/mpi' -type d | sort | tail -n 1
}
SRCDIR="$(find_source)"
if [ -z "$SRCDIR" ] || ! [ -x "$SRCDIR/configure" ]; then
  # deb-src entries mirroring the deb ones of debian.sources, when no deb-src entry exists yet.
  need_update=0
  if ! grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    src_list=/etc/apt/sources.list.d/takyon-deb-src.sources
    takyon_ci_log "apt: adding deb-src entries ($src_list)"
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | as_root tee "$src_list" >/dev/null
    need_update=1
  fi
  if [ "$need_update" -eq 1 ] || ! compgen -G '/var/lib/apt/lists/*_Sources*' >/dev/null; then
    takyon_ci_log "apt: update (source indexes)"
    as_root apt-get update -q
  fi
  rm -rf "$SRC_PARENT"
  mkdir -p "$SRC_PARENT"
  takyon_ci_log "apt-get source mpich into $SRC_PARENT"
  (cd "$SRC_PARENT" && apt-get source -q mpich >"$WORK/apt-source.log" 2>&1) ||
    { tail -n 20 "$WORK/apt-source.log"; exit 1; }
  SRCDIR="$(find_source)"
fi
takyon_ci_log "suite: $SRCDIR"

# --- Takyon: build and install -----------------------------------------------------------------
if [ -z "$PREFIX" ]; then
  PREFIX="$WORK/takyon-prefix"
  tb="$WORK/takyon-build"
  takyon_ci_log "takyon: build (Release, -j$JOBS) and install into $PREFIX, log in $WORK/takyon-build.log"
  generator=()
  if ! [ -f "$tb/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
  {
    cmake -S "$ROOT" -B "$tb" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DTAKYON_SANITIZE= \
      -DTAKYON_BUILD_TESTS=OFF -DTAKYON_BUILD_BENCH=OFF -DTAKYON_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX="$PREFIX" &&
      cmake --build "$tb" -j "$JOBS" && cmake --install "$tb"
  } >"$WORK/takyon-build.log" 2>&1 || { tail -n 60 "$WORK/takyon-build.log"; exit 1; }
fi
for tool in takyon-mpicc takyon-run; do
  [ -x "$PREFIX/bin/$tool" ] || { echo "mpich-testsuite: no $PREFIX/bin/$tool" >&2; exit 1; }
done

# --- The suite's build trees, one per library --------------------------------------------------
# Strict MPI mode (what the suite asks of implementations other than MPICH), MPI_THREAD_MULTIPLE
# for the threads directory; none of the parts no directory here needs (Fortran, C++, I/O,
# spawn, partitioned, performance, fault tolerance).
CONFIGURE_ARGS=(--enable-strictmpi --enable-threads=multiple --disable-fortran --disable-cxx --disable-romio
  --disable-spawn --disable-part --disable-perftest --disable-ft-tests)
# configure_tree <name> <MPI compiler wrapper> <CPPFLAGS>: MPICC, not CC (configure takes the
# first mpicc on PATH otherwise)
configure_tree() {
  local tree="$WORK/tree-$1" stamp
  stamp="$SRCDIR ${CONFIGURE_ARGS[*]} MPICC=$2 CPPFLAGS=$3"
  if [ "$RECONFIGURE" -eq 0 ] && [ -f "$tree/config.status" ] &&
    [ "$(cat "$tree/.takyon-stamp" 2>/dev/null)" = "$stamp" ]; then
    return 0
  fi
  rm -rf "$tree"
  mkdir -p "$tree"
  takyon_ci_log "$1: configure test/mpi (MPICC=$2), log in $tree/configure.log"
  (cd "$tree" && "$SRCDIR/configure" MPICC="$2" CPPFLAGS="$3" "${CONFIGURE_ARGS[@]}" >configure.log 2>&1) ||
    { tail -n 40 "$tree/configure.log"; exit 1; }
  if ! grep -qxF "CC = $2" "$tree/Makefile"; then
    echo "mpich-testsuite: $tree was configured with $(grep -m1 '^CC = ' "$tree/Makefile"), not $2" >&2
    exit 1
  fi
  echo "$stamp" >"$tree/.takyon-stamp"
}
# Open MPI declares the MPI-1 functions MPI-3 removed only on request: the suite's helper library
# (dtpools) and its *_oldapi tests use MPI_Type_hvector and MPI_Type_hindexed.
configure_tree ompi "$(command -v mpicc)" "-DOMPI_OMIT_MPI1_COMPAT_DECLS=0"
configure_tree takyon "$PREFIX/bin/takyon-mpicc" ""
# Takyon has no MPI-1 functions: dtpools alone is built with their MPI-2 names (same arguments),
# so that the *_oldapi tests still test the removed functions.
DTPOOLS_SHIM="-DMPI_Type_hvector=MPI_Type_create_hvector -DMPI_Type_hindexed=MPI_Type_create_hindexed"
for name in ompi takyon; do
  tree="$WORK/tree-$name"
  shim=()
  [ "$name" = takyon ] && shim=("CPPFLAGS=$DTPOOLS_SHIM")
  { make -C "$tree/util" -j "$JOBS" && make -C "$tree/dtpools" -j "$JOBS" "${shim[@]}"; } >"$tree/helpers.log" 2>&1 ||
    { tail -n 40 "$tree/helpers.log"; exit 1; }
done

# --- Run -----------------------------------------------------------------------------------------
RUNNER=(python3 "$ROOT/tests/mpich/run_suite.py")
run_side() {
  local name=$1 launch=$2
  takyon_ci_log "$name: build and run $DIRS (timeout ${TIMEOUT} s, logs in $WORK/logs-$name)"
  "${RUNNER[@]}" run --lib "$name" --tree "$WORK/tree-$name" --srcdir "$SRCDIR" --dirs "$DIRS" \
    --lists "$LISTS" --launch "$launch" --timeout "$TIMEOUT" --jobs "$JOBS" \
    --results "$WORK/results-$name.json" --logs "$WORK/logs-$name" "${RUN_ARGS[@]}"
}
# ompi_cached: the work dir has Open MPI's results of every directory asked for, with these lists.
ompi_cached() {
  python3 - "$WORK/results-ompi.json" "$DIRS" "$LISTS" <<'PY'
import json, sys
try:
    data = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(1)
have = {v["top"] for v in data["tests"].values()}
sys.exit(0 if set(sys.argv[2].split(",")) <= have and data.get("lists") == sys.argv[3].split(",") else 1)
PY
}
if [ "$RERUN_OMPI" -eq 0 ] && ompi_cached; then
  takyon_ci_log "ompi: reusing $WORK/results-ompi.json (--rerun-ompi to run it again)"
else
  root_args=()
  [ "$(id -u)" -eq 0 ] && root_args=(--allow-run-as-root)
  run_side ompi "mpirun ${root_args[*]} --oversubscribe -np {np}"
fi
run_side takyon "$PREFIX/bin/takyon-run -n {np}"

takyon_ci_log "report (results.csv, results.json in $WORK), $((SECONDS - START)) s so far"
"${RUNNER[@]}" report --results-dir "$WORK" --dirs "$DIRS" --expected "$LIST" \
  --expected-display "tests/mpich/expected-failures.txt" "${REPORT_ARGS[@]}"
