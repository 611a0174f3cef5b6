#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's test command: install what is missing, then build and run every ctest test in three
# configurations (RelWithDebInfo, ASan+UBSan, TSan), each in its own build/<name> directory, check
# formatting and run clang-tidy (ci/lint.sh), and fuzz the graph-file parser, interconnect strings and
# graph files through the public API for a short while (libFuzzer, clang).
#
#   bash ci/test.sh                       # all three, as CI runs it (Debian 12, as root)
#   TAKYON_CI_CONFIGS="normal" bash ci/test.sh
#
# Environment knobs (all optional):
#   TAKYON_CI_CONFIGS   which configurations, in order (default "normal lint asan tsan fuzz")
#   TAKYON_CI_FUZZ_SECONDS  how long each of the three fuzzers runs (default 30)
#   TAKYON_CI_JOBS      parallel build jobs (default 2)
#   TAKYON_CI_CTEST_JOBS  ctest -j (default TAKYON_CI_JOBS + 1: the tests leave a core idle a quarter of
#                       the time, waiting on peers, timeouts and process start-up)
#   TAKYON_CI_BUDGET_<name>  seconds the ctest run of that configuration may take in all
#                       (defaults: normal 450, asan 720, tsan 720); each test also has its own timeout
#   TAKYON_CI_CTEST_ARGS extra ctest arguments, e.g. "-L examples" or "-E bench"
# Exit status: 0 if every configuration built and passed, 1 otherwise. Logs: build/<name>/ci-*.log.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
# shellcheck source=ci/common.sh
source ci/common.sh

JOBS="${TAKYON_CI_JOBS:-2}"
CTEST_JOBS="${TAKYON_CI_CTEST_JOBS:-$((JOBS + 1))}"
read -r -a CONFIGS <<<"${TAKYON_CI_CONFIGS:-normal lint asan tsan fuzz}"
read -r -a EXTRA_CTEST_ARGS <<<"${TAKYON_CI_CTEST_ARGS:-}"
START=$SECONDS

takyon_ci_install_packages || {
  echo "takyon-ci: could not install the required packages" >&2
  exit 1
}

# Sanitizer runtime options; the caller's own settings come first and win.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-second_deadlock_stack=1}"

# relwithdebinfo_flags <-O level>: RelWithDebInfo's flags at that level with -g1.
relwithdebinfo_flags() {
  echo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$1 -g1 -DNDEBUG"
  echo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$1 -g1 -DNDEBUG"
}
# The normal build: RelWithDebInfo's -O2 with -g1, as below (CI reads stack traces, not variables).
mapfile -t NORMAL_FLAGS < <(relwithdebinfo_flags -O2)
# Sanitizer builds: -g1 (line tables and function names: what sanitizer stack traces print, at a
# fraction of -g's compile and link time); ASan at -O1 as its documentation recommends (faster to
# build, stack traces exact), TSan at -O2 (its checks are slow enough already).
# Both build their libraries as unity sources too (CMAKE_UNITY_BUILD, eight sources to a translation
# unit: the standard headers are parsed once per batch, which shortens ASan's build markedly).
# The normal configuration compiles every source on its own, as users and developers build it, so a
# source that leans on what another of its batch includes still fails there.
mapfile -t SANITIZER_FLAGS_ASAN < <(relwithdebinfo_flags -O1)
mapfile -t SANITIZER_FLAGS_TSAN < <(relwithdebinfo_flags -O2)
SANITIZER_FLAGS_ASAN+=(-DCMAKE_UNITY_BUILD=ON)
SANITIZER_FLAGS_TSAN+=(-DCMAKE_UNITY_BUILD=ON)
# ... and run each GoogleTest program as a few shards, not a process per case (tests/CMakeLists.txt,
# TAKYON_TEST_SHARDS): a sanitized process is slow to start and end, over some 1000 cases.
# The normal configuration shards only the four large programs (LARGE: their cases repeat costly
# fixtures), and keeps a ctest test per case for the others, so gtest_discover_tests stays in use.
NORMAL_FLAGS+=(-DTAKYON_TEST_SHARDS=LARGE)
# Warnings are errors in the normal configuration (the sanitizer builds at -O1 add false positives).
NORMAL_FLAGS+=(-DTAKYON_WERROR=ON)
SANITIZER_FLAGS_ASAN+=(-DTAKYON_TEST_SHARDS=ON)
SANITIZER_FLAGS_TSAN+=(-DTAKYON_TEST_SHARDS=ON)

RESTORE_MMAP_RND_BITS=""
# shellcheck disable=SC2317  # called by the EXIT trap
restore_sysctl() {
  if [ -n "$RESTORE_MMAP_RND_BITS" ]; then
    { echo "$RESTORE_MMAP_RND_BITS" >/proc/sys/vm/mmap_rnd_bits; } 2>/dev/null || true
  fi
}
trap restore_sysctl EXIT

# probe_sanitizer <flag>: checks that a sanitized binary runs on this kernel and sets LAUNCHER to
# what makes it run (nothing, or setarch -R = no ASLR). Sanitizer runtimes of GCC 12 can fail on
# kernels with more mmap randomization bits than they know ("unexpected memory mapping").
# Returns 1 if nothing helps.
LAUNCHER=()
probe_sanitizer() {
  local flag=$1 dir="$ROOT/build/ci-probe-$1"
  mkdir -p "$dir"
  cat >"$dir/probe.c" <<'PROBE'
#include <pthread.h>
#include <stdlib.h>
static void *work(void *p) { return p; }
int main(void) {
  pthread_t t;
  void *m = malloc(16);
  if (pthread_create(&t, NULL, work, m) != 0) return 1;
  pthread_join(t, NULL);
  free(m);
  return 0;
}
PROBE
  LAUNCHER=()
  if ! cc -fsanitize="$flag" -g -pthread "$dir/probe.c" -o "$dir/probe" >"$dir/probe.log" 2>&1; then
    takyon_ci_log "$flag sanitizer: the compiler cannot build a sanitized program:"
    cat "$dir/probe.log"
    return 1
  fi
  if "$dir/probe" >"$dir/probe.log" 2>&1; then
    return 0
  fi
  if grep -q "LeakSanitizer has encountered a fatal error" "$dir/probe.log"; then
    # LSan needs ptrace-like thread suspension, which some containers forbid.
    takyon_ci_log "$flag sanitizer: LeakSanitizer cannot run here; leak checks off"
    export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
    "$dir/probe" >"$dir/probe.log" 2>&1 && return 0
  fi
  local arch
  arch="$(uname -m)"
  if setarch "$arch" -R "$dir/probe" >"$dir/probe.log" 2>&1; then
    takyon_ci_log "$flag sanitizer: needs ASLR off on this kernel; running under 'setarch $arch -R'"
    LAUNCHER=(setarch "$arch" -R)
    return 0
  fi
  local bits
  bits="$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo "")"
  if [ "$(id -u)" -eq 0 ] && [ -n "$bits" ] && [ "$bits" -gt 28 ]; then
    if { echo 28 >/proc/sys/vm/mmap_rnd_bits; } 2>/dev/null; then
      [ -z "$RESTORE_MMAP_RND_BITS" ] && RESTORE_MMAP_RND_BITS="$bits"
    fi
    if [ -n "$RESTORE_MMAP_RND_BITS" ] && "$dir/probe" >"$dir/probe.log" 2>&1; then
      takyon_ci_log "$flag sanitizer: vm.mmap_rnd_bits lowered from $bits to 28 (restored on exit)"
      return 0
    fi
  fi
  takyon_ci_log "$flag sanitizer: sanitized programs do not run on this machine:"
  cat "$dir/probe.log"
  return 1
}

declare -A RESULT BUILD_S TEST_S DETAIL
# Why each configuration's tests failed, printed after the summary: a CI log is often kept only in
# part (its head and tail), and the failing test's own output sits in the middle.
declare -A WHY

# failure_digest <ctest log>: for each failed test, its failure line and the lines of its output
# that say why (assertions, sanitizer reports, errors, timeouts), 40 at most per test.
failure_digest() {
  awk '
    /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: .*\*\*\*/ { if (n) flush(); inblock = 1; head = $0; n = 0; next }
    /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / { if (inblock) flush(); inblock = 0; next }
    /^[0-9]+% tests passed/ { if (inblock) flush(); inblock = 0; next }
    inblock && /(Failure|FAILED|[Ee]rror|ERROR|Sanitizer|SUMMARY|Expected|Which is|Value of|Actual:|timed out|[Tt]imeout|Assertion|Abort|abort|signal|#[0-9]+ 0x)/ {
      if (n < 40) lines[n++] = $0
    }
    function flush(   i) {
      print head
      for (i = 0; i < n; ++i) print "    " lines[i]
      n = 0
    }
  ' "$1" | head -n 200
}
# generator_args <dir>: -G Ninja for a new build directory when ninja is installed (a build
# directory keeps the generator it was first configured with: CMake refuses to change it).
generator_args() {
  if command -v ninja >/dev/null 2>&1 && ! [ -f "$1/CMakeCache.txt" ]; then
    echo "-G Ninja"
  fi
}

# run_config <name> <ctest budget seconds> <cmake args...>
run_config() {
  local name=$1 budget=$2
  shift 2
  local dir="build/$name" t0 rc generator
  read -r -a generator <<<"$(generator_args "$dir")"
  mkdir -p "$dir"
  takyon_ci_log "$name: configure (${generator[*]} $*)"
  t0=$SECONDS
  if ! "${LAUNCHER[@]}" cmake -S . -B "$dir" "${generator[@]}" "$@" >"$dir/ci-configure.log" 2>&1; then
    tail -n 60 "$dir/ci-configure.log"
    RESULT[$name]=FAILED DETAIL[$name]="configure failed, see $dir/ci-configure.log"
    BUILD_S[$name]=$((SECONDS - t0))
    return 1
  fi
  takyon_ci_log "$name: build (-j$JOBS), log in $dir/ci-build.log"
  # gtest_discover_tests runs the test programs while building, hence the launcher here too.
  if ! "${LAUNCHER[@]}" cmake --build "$dir" -j "$JOBS" >"$dir/ci-build.log" 2>&1; then
    grep -E -B2 -A12 "error|Error" "$dir/ci-build.log" | tail -n 150
    RESULT[$name]=FAILED DETAIL[$name]="build failed, see $dir/ci-build.log"
    BUILD_S[$name]=$((SECONDS - t0))
    return 1
  fi
  BUILD_S[$name]=$((SECONDS - t0))
  takyon_ci_log "$name: built in ${BUILD_S[$name]} s; ctest -j$CTEST_JOBS (budget ${budget} s)"
  t0=$SECONDS
  # The full ctest output goes to ci-ctest.log; the terminal gets everything but the lines of
  # tests that started or passed (failures keep their output: --output-on-failure).
  timeout -k 20 "$budget" "${LAUNCHER[@]}" ctest --test-dir "$dir" --output-on-failure --no-tests=error \
    -j "$CTEST_JOBS" "${EXTRA_CTEST_ARGS[@]}" 2>&1 | tee "$dir/ci-ctest.log" |
    grep -v -E '^ +Start +[0-9]+: |^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed +[0-9.]+ sec$'
  rc=${PIPESTATUS[0]}
  TEST_S[$name]=$((SECONDS - t0))
  # GoogleTest cases skipped inside shards (TAKYON_TEST_SHARDS) pass with their shard: name them, as
  # ctest names the skipped tests of a configuration with a ctest test per case.
  local skipped=""
  grep -q -E '^TAKYON_TEST_SHARDS:[A-Z]+=(ON|LARGE)$' "$dir/CMakeCache.txt" 2>/dev/null &&
    skipped="$(grep -h -E '^\[  SKIPPED \] [^0-9].* \([0-9]+ ms\)$' "$dir/Testing/Temporary/LastTest.log" 2>/dev/null |
      sed -E 's/^\[  SKIPPED \] //; s/ \([0-9]+ ms\)$//' | sort -u)"
  if [ -n "$skipped" ]; then
    takyon_ci_log "$name: GoogleTest cases skipped in shards ($(echo "$skipped" | wc -l); each printed its reason):"
    echo "$skipped" | sed 's/^/    /'
  fi
  local line
  line="$(grep -E '^[0-9]+% tests passed' "$dir/ci-ctest.log" | tail -n 1)"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    RESULT[$name]=FAILED DETAIL[$name]="ctest exceeded its ${budget} s budget and was stopped"
  elif [ "$rc" -ne 0 ]; then
    RESULT[$name]=FAILED DETAIL[$name]="${line:-ctest exited with $rc}"
    WHY[$name]="$(failure_digest "$dir/ci-ctest.log")"
  else
    RESULT[$name]=PASSED DETAIL[$name]="$line"
  fi
  [ ${#LAUNCHER[@]} -gt 0 ] && DETAIL[$name]+=" (under ${LAUNCHER[*]})"
  [ "${RESULT[$name]}" = PASSED ]
}

# run_fuzz <seconds>: builds the libFuzzer targets with clang (tests/fuzz: the graph parser alone, and
# the public API of a libtakyon built with ASan+UBSan: interconnect strings through takyonCreate, graph
# files through takyonLoadGraphDescription) and runs each from its seed corpus for <seconds>; any crash,
# leak, hang or /dev/shm entry left behind fails the configuration.
run_fuzz() {
  local seconds=$1 dir="build/fuzz" t0
  local targets=(takyon_graph_fuzz takyon_provider_fuzz takyon_graph_load_fuzz)
  mkdir -p "$dir"
  takyon_ci_log "fuzz: configure (clang, TAKYON_FUZZ=ON, TAKYON_SANITIZE=address)"
  t0=$SECONDS
  if ! "${LAUNCHER[@]}" env CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DTAKYON_FUZZ=ON -DTAKYON_SANITIZE=address -DTAKYON_BUILD_TESTS=OFF -DTAKYON_BUILD_EXAMPLES=OFF \
      -DTAKYON_BUILD_BENCH=OFF -DTAKYON_WITH_UCX=OFF >"$dir/ci-configure.log" 2>&1 ||
    ! "${LAUNCHER[@]}" cmake --build "$dir" -j "$JOBS" --target "${targets[@]}" >"$dir/ci-build.log" 2>&1; then
    tail -n 60 "$dir/ci-configure.log" "$dir/ci-build.log" 2>/dev/null
    RESULT[fuzz]=FAILED DETAIL[fuzz]="fuzz targets did not build, see $dir/ci-*.log"
    BUILD_S[fuzz]=$((SECONDS - t0))
    return 1
  fi
  BUILD_S[fuzz]=$((SECONDS - t0))
  takyon_ci_log "fuzz: built in ${BUILD_S[fuzz]} s; ${#targets[@]} fuzzers, ${seconds} s each"
  t0=$SECONDS
  if "${LAUNCHER[@]}" bash tests/fuzz/run_fuzz.sh "$dir" "$seconds" "${targets[@]}" >"$dir/ci-fuzz.log" 2>&1; then
    RESULT[fuzz]=PASSED
    DETAIL[fuzz]="$(grep -E '^#[0-9]+ +DONE' "$dir/ci-fuzz.log" | awk '{print $1}' | paste -sd ' ' -) runs"
  else
    tail -n 80 "$dir/ci-fuzz.log"
    RESULT[fuzz]=FAILED DETAIL[fuzz]="a fuzzer found a problem, see $dir/ci-fuzz.log"
  fi
  TEST_S[fuzz]=$((SECONDS - t0))
  [ "${RESULT[fuzz]}" = PASSED ]
}

for config in "${CONFIGS[@]}"; do
  LAUNCHER=()
  case "$config" in
    normal)
      run_config normal "${TAKYON_CI_BUDGET_normal:-450}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DTAKYON_SANITIZE= -DTAKYON_WITH_UCX=ON "${NORMAL_FLAGS[@]}"
      ;;
    asan)
      if probe_sanitizer address,undefined; then
        # No benchmarks here either (as in TSan): they are tools, built and smoke-tested in the
        # normal configuration; the sanitizers watch the libraries, launcher and examples.
        run_config asan "${TAKYON_CI_BUDGET_asan:-720}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTAKYON_WITH_UCX=ON \
          -DTAKYON_SANITIZE=address -DTAKYON_BUILD_BENCH=OFF "${SANITIZER_FLAGS_ASAN[@]}"
      else
        RESULT[asan]=FAILED DETAIL[asan]="ASan programs cannot run on this machine"
      fi
      ;;
    tsan)
      if probe_sanitizer thread; then
        run_config tsan "${TAKYON_CI_BUDGET_tsan:-720}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTAKYON_WITH_UCX=ON \
          -DTAKYON_SANITIZE=thread -DTAKYON_BUILD_BENCH=OFF "${SANITIZER_FLAGS_TSAN[@]}"
      else
        RESULT[tsan]=FAILED DETAIL[tsan]="TSan programs cannot run on this machine"
      fi
      ;;
    lint)
      t0=$SECONDS
      takyon_ci_log "lint: clang-format and clang-tidy (ci/lint.sh), log in build/lint.log"
      mkdir -p build
      if bash ci/lint.sh >build/lint.log 2>&1; then
        RESULT[lint]=PASSED DETAIL[lint]="$(grep -E '^lint: ' build/lint.log | sed 's/^lint: //' | paste -sd ';' -)"
      else
        tail -n 120 build/lint.log
        RESULT[lint]=FAILED DETAIL[lint]="formatting or clang-tidy findings, see build/lint.log"
      fi
      TEST_S[lint]=$((SECONDS - t0))
      ;;
    fuzz)
      if probe_sanitizer address,undefined; then
        run_fuzz "${TAKYON_CI_FUZZ_SECONDS:-30}"
      else
        RESULT[fuzz]=FAILED DETAIL[fuzz]="ASan programs cannot run on this machine"
      fi
      ;;
    *)
      echo "takyon-ci: unknown configuration '$config' (normal, lint, asan, tsan, fuzz)" >&2
      RESULT[$config]=FAILED DETAIL[$config]="unknown configuration"
      ;;
  esac
done

status=0
echo
echo "== Takyon ci/test.sh summary (build -j$JOBS, ctest -j$CTEST_JOBS, $(nproc) cores) =="
for config in "${CONFIGS[@]}"; do
  case "$config" in
    normal) what="RelWithDebInfo" ;;
    asan) what="TAKYON_SANITIZE=address" ;;
    tsan) what="TAKYON_SANITIZE=thread" ;;
    lint) what="clang-format, clang-tidy" ;;
    fuzz) what="libFuzzer, 3 targets" ;;
    *) what="?" ;;
  esac
  printf '%-7s %-24s %-7s build %4ss  ctest %4ss  %s\n' "$config" "$what" "${RESULT[$config]:-FAILED}" \
    "${BUILD_S[$config]:--}" "${TEST_S[$config]:--}" "${DETAIL[$config]:-}"
  [ "${RESULT[$config]:-FAILED}" = PASSED ] || status=1
done
for config in "${CONFIGS[@]}"; do
  [ -n "${WHY[$config]:-}" ] || continue
  echo
  echo "== why $config failed (from build/$config/ci-ctest.log) =="
  echo "${WHY[$config]}"
done
echo "total $((SECONDS - START)) s: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
