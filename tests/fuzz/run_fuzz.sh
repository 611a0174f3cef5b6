#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the graph parser fuzzer for <seconds> from a seed corpus of the test graphs; non-zero on a crash.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 <build_dir configured with -DTAKYON_FUZZ=ON> <seconds>" >&2
  exit 2
fi
build_dir=$1
seconds=$2
here=$(cd "$(dirname "$0")" && pwd)
fuzzer=$build_dir/tests/fuzz/takyon_graph_fuzz
[[ -x $fuzzer ]] || { echo "$fuzzer not built (cmake --build $build_dir --target takyon_graph_fuzz)" >&2; exit 2; }

# libFuzzer adds what it finds to the first corpus directory: keep the sources' seeds read-only.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
cp "$here"/../graph/good/*.txt "$here"/../graph/malformed/*.txt "$work/corpus/"

# libFuzzer exits non-zero (and writes crash-* into artifacts) on a crash, leak, timeout or OOM.
set +e  # keep going after a failing fuzzer to save its reproducers
"$fuzzer" "$work/corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 2>&1 | tail -n 40
status=${PIPESTATUS[0]}
if [[ $status -ne 0 ]]; then
  mkdir -p "$build_dir/fuzz-artifacts"
  cp "$work"/artifacts/* "$build_dir/fuzz-artifacts/" 2>/dev/null || true
  echo "FUZZ FAILURE (status $status); reproducers in $build_dir/fuzz-artifacts" >&2
fi
exit "$status"
