#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the fuzzers for <seconds> each from their seed corpora; non-zero on a crash, leak, hang or a
# /dev/shm entry left behind.
#   run_fuzz.sh <build_dir configured with -DTAKYON_FUZZ=ON> <seconds per fuzzer> [fuzzer...]
# Fuzzers (default: every one the build has):
#   takyon_graph_fuzz        the graph file parser and checker alone (seeds: tests/graph)
#   takyon_provider_fuzz     interconnect strings through takyonCreate (seeds: tests/fuzz/corpus/provider)
#   takyon_graph_load_fuzz   graph files through takyonLoadGraphDescription (seeds: tests/graph, each
#                            behind a process ID byte)
set -uo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 <build_dir configured with -DTAKYON_FUZZ=ON> <seconds per fuzzer> [fuzzer...]" >&2
  exit 2
fi
build_dir=$1
seconds=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
graphs=("$here"/../graph/good/*.txt "$here"/../graph/malformed/*.txt)
if [[ $# -gt 0 ]]; then
  fuzzers=("$@")
else
  fuzzers=()
  for f in takyon_graph_fuzz takyon_provider_fuzz takyon_graph_load_fuzz; do
    [[ -x $build_dir/tests/fuzz/$f ]] && fuzzers+=("$f")
  done
  [[ ${#fuzzers[@]} -gt 0 ]] || { echo "no fuzzer built in $build_dir/tests/fuzz" >&2; exit 2; }
fi

# libFuzzer adds what it finds to the first corpus directory: keep the sources' seeds read-only.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The path providers' shared-memory names: takyon-<uid>-<provider>-<id>-... (MPI jobs' entries, which
# tests running beside a fuzzer make, are named otherwise).
shm_entries() { find /dev/shm -maxdepth 1 -name "takyon-$(id -u)-*" -printf '%f\n' 2>/dev/null | sort; }

status=0
for name in "${fuzzers[@]}"; do
  fuzzer=$build_dir/tests/fuzz/$name
  if [[ ! -x $fuzzer ]]; then
    echo "$fuzzer not built (cmake --build $build_dir --target $name)" >&2
    status=2
    continue
  fi
  corpus=$work/$name/corpus
  artifacts=$work/$name/artifacts
  mkdir -p "$corpus" "$artifacts"
  max_len=65536
  case $name in
    takyon_graph_fuzz) cp "${graphs[@]}" "$corpus/" ;;
    takyon_graph_load_fuzz)
      for g in "${graphs[@]}"; do
        { printf '\000'; cat "$g"; } >"$corpus/p0-$(basename "$g")"
        { printf '\001'; cat "$g"; } >"$corpus/p1-$(basename "$g")"
      done
      ;;
    takyon_provider_fuzz)
      cp "$here"/corpus/provider/* "$corpus/"
      max_len=1100  # two option bytes and an interconnect string (at most 999 characters)
      ;;
    *) echo "unknown fuzzer $name" >&2; status=2; continue ;;
  esac
  before=$(shm_entries)
  echo "== $name for $seconds s"
  # libFuzzer exits non-zero (and writes crash-* into artifacts) on a crash, leak, timeout or OOM.
  "$fuzzer" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
    -artifact_prefix="$artifacts/" -print_final_stats=1 2>&1 | grep -a -v -E '^"[^"]*" # Uses: [0-9]+$' | tail -n 40
  rc=${PIPESTATUS[0]}
  left=$(comm -13 <(echo "$before") <(shm_entries))
  if [[ -n $left ]]; then
    echo "FUZZ FAILURE: $name left in /dev/shm: $(echo "$left" | tr '\n' ' ')" >&2
    [[ $rc -ne 0 ]] || rc=1
  fi
  if [[ $rc -ne 0 ]]; then
    mkdir -p "$build_dir/fuzz-artifacts"
    cp "$artifacts"/* "$build_dir/fuzz-artifacts/" 2>/dev/null || true
    echo "FUZZ FAILURE: $name (status $rc); reproducers in $build_dir/fuzz-artifacts" \
      "(run: $fuzzer <reproducer>)" >&2
    status=1
  fi
done
exit "$status"
