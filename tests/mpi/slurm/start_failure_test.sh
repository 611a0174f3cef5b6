#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A cluster start that cannot work must fail fast, show the daemons' logs and leave nothing running.
#   1. munged refuses its key (cut to 8 bytes; munge wants at least 32);
#   2. slurmctld exits at once (a stand-in that just fails).
# Usage: start_failure_test.sh <slurm_cluster.sh>. Uses its own temporary directory, not the
# fixture's cluster, so it may run beside the other tests.
set -euo pipefail

script=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/takyon-slurm-fail.XXXXXX")
trap 'rm -rf "$work"' EXIT
munged=${TAKYON_MUNGED:-$(PATH="$PATH:/usr/sbin:/sbin" command -v munged)}

fail() {
  echo "start_failure_test: FAIL: $*" >&2
  exit 1
}

# still_running <cluster dir>: whether a daemon of that cluster still runs (by its pid files).
still_running() {
  local f pid
  for f in "$1/munge/munged.pid" "$1/run/slurmctld.pid" "$1/run/slurmd.pid"; do
    pid=$( { tr -cd '0-9' <"$f"; } 2>/dev/null) || continue
    [[ -n $pid && -r /proc/$pid/status ]] || continue
    grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null && continue
    echo "$f: pid $pid"
    return 0
  done
  return 1
}

# expect_failure <case> <expected text>... -- <env assignments>...
expect_failure() {
  local name=$1 dir="$work/$1" out rc start elapsed
  shift
  local -a want=()
  while [[ $1 != -- ]]; do
    want+=("$1")
    shift
  done
  shift
  start=$EPOCHREALTIME
  set +e
  out=$(env "$@" TAKYON_SLURM_START_TIMEOUT=20 timeout 90 "$script" start "$dir" 2>&1)
  rc=$?
  set -e
  elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
  echo "=== $name: exit $rc after $elapsed s"
  echo "$out"
  ((rc != 0)) || fail "$name: start succeeded"
  ((rc != 124)) || fail "$name: start hung"
  local w
  for w in "${want[@]}"; do
    grep -qF -- "$w" <<<"$out" || fail "$name: output lacks '$w'"
  done
  if running=$(still_running "$dir"); then
    "$script" stop "$dir" || true
    fail "$name: a daemon outlived the failed start ($running)"
  fi
  "$script" stop "$dir" || fail "$name: stop after a failed start failed"
}

cat >"$work/short-key-munged" <<EOF
#!/usr/bin/env bash
for a in "\$@"; do
  case \$a in --key-file=*) k=\${a#--key-file=}; chmod u+w "\$k"; truncate -s 8 "\$k"; chmod 0400 "\$k" ;; esac
done
exec $(printf %q "$munged") "\$@"
EOF
chmod +x "$work/short-key-munged"
expect_failure bad_key "munged failed to start" "Keyfile must be at least 32 bytes" -- \
  TAKYON_MUNGED="$work/short-key-munged"

expect_failure slurmctld_exits "slurmctld exited" "munged.log" -- TAKYON_SLURMCTLD=/bin/false

echo "start_failure_test: both failed starts failed fast, with logs, leaving nothing running"
