#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs a graph example as the graph file's processes, each started as its own program:
#   <program> <process_id> <graph copy> [args...]   for process_id = nprocs-1 down to 0
# (the reverse order shows the processes may start in any order), and fails if any of them fails.
# Path IDs: the graph is copied to a temporary directory with every "-ID=<n>" replaced by
# "-ID=<base + n>", base derived from this script's pid ((pid << 10), as run_with_unique_id.sh and
# the test support library do), so concurrent runs (ctest -j) never share a path ID. n < 1024.
# When one process fails, or after RUN_GRAPH_DEADLINE seconds (default 100), the others are killed.
# With RUN_GRAPH_LAUNCHER set (e.g. "takyon-run -n", "mpirun --oversubscribe -np"), the launcher
# starts them instead: `$RUN_GRAPH_LAUNCHER <nprocs> <program> - <graph copy> [args...]`, each process
# taking its process ID from the launcher's rank ("-"), and the launcher's exit status is the result.
# Usage: run_graph.sh <program> <graph_file> <nprocs> [program args...]
#   e.g. run_graph.sh build/ex/examples/graph/barrier examples/graph/barrier/graph_mp.txt 3 500
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 <program> <graph_file> <nprocs> [program args...]" >&2
  exit 2
fi
program=$1
graph=$2
nprocs=$3
shift 3
deadline=${RUN_GRAPH_DEADLINE:-100}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/takyon-graph.XXXXXX") || exit 2
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

base=$(( ($$ & 0x3FFFFF) * 1024 ))
if ! awk -v base="$base" '{
      out = ""; line = $0
      while (match(line, /-ID=[0-9]+/)) {
        n = substr(line, RSTART + 4, RLENGTH - 4) + 0
        if (n >= 1024) { printf("%s:%d: -ID=%d: IDs must be below 1024\n", FILENAME, NR, n) > "/dev/stderr"; exit 1 }
        out = out substr(line, 1, RSTART - 1) "-ID=" (base + n)
        line = substr(line, RSTART + RLENGTH)
      }
      print out line
    }' "$graph" > "$tmp/graph.txt"; then
  exit 2
fi

if [ -n "${RUN_GRAPH_LAUNCHER:-}" ]; then
  read -r -a launcher <<<"$RUN_GRAPH_LAUNCHER"
  timeout -k 5 "$deadline" "${launcher[@]}" "$nprocs" "$program" - "$tmp/graph.txt" "$@"
  rc=$?
  [ "$rc" -eq 124 ] && echo "run_graph.sh: ${launcher[0]} still running after ${deadline}s; stopped" >&2
  [ "$rc" -eq 0 ] && echo "run_graph.sh: all $nprocs processes passed under ${launcher[0]}"
  exit "$rc"
fi

for (( p = nprocs - 1; p >= 0; p-- )); do
  "$program" "$p" "$tmp/graph.txt" "$@" &
  pids[p]=$!
done

# Wait for all; bash reaps exited children itself, so "kill -0" tells which are still running.
status=0
running=$nprocs
start=$SECONDS
while [ "$running" -gt 0 ]; do
  for p in "${!pids[@]}"; do
    pid=${pids[p]}
    if ! kill -0 "$pid" 2>/dev/null; then
      wait "$pid"
      rc=$?
      unset "pids[p]"
      running=$((running - 1))
      if [ "$rc" -ne 0 ]; then
        echo "run_graph.sh: process $p exited with $rc" >&2
        status=1
      fi
    fi
  done
  if [ "$status" -ne 0 ] && [ "$running" -gt 0 ]; then
    echo "run_graph.sh: stopping the other processes" >&2
    break
  fi
  if [ $((SECONDS - start)) -ge "$deadline" ]; then
    echo "run_graph.sh: still running after ${deadline}s: processes ${!pids[*]}; stopping them" >&2
    status=1
    break
  fi
  [ "$running" -gt 0 ] && sleep 0.05
done

# Stop whatever is left (only the processes started above), give them 2 s, then kill them.
if [ "${#pids[@]}" -gt 0 ]; then
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  sleep 2
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  pids=()
fi
[ "$status" -eq 0 ] && echo "run_graph.sh: all $nprocs processes passed"
exit "$status"
