#!/bin/sh
# SPDX-License-Identifier: MIT
# Drives the MPI layer's /dev/shm tests (ctest):
#   shm_env.sh full <size> <ok|fail> [<text>...] -- <command...>
#       runs the command with a /dev/shm of its own (a tmpfs of <size> in a private mount namespace);
#       ok: exit 0; fail: a non-zero exit that is no signal (not 128+N, no "Bus error"/"SIGBUS"),
#       with every <text> in its output.
#   shm_env.sh squat <takyon-run> <np> <program>
#       another local user (uid 65534), told the job id, creates, mode 0666, every /dev/shm name the
#       job's inboxes had before they held a random part (/takyon-mpi-<job>-<rank>), and one of the
#       new form per rank, before the ranks reach MPI_Init; the job, run by a third user (uid 65533),
#       for whom /dev/shm's sticky bit makes such names unremovable, must succeed and leave no inbox.
# Exit 77 (skipped) with the reason where the machine cannot do it (not root, no namespaces).
set -u
mode=$1
shift
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

skip() {
  echo "SKIPPED: $*"
  exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (mount namespaces, other users)"

case "$mode" in
full)
  size=$1 expect=$2
  shift 2
  texts=""
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    texts="$texts$1
"
    shift
  done
  shift
  unshare -m true 2>/dev/null || skip "unshare -m is not permitted here"
  # unshare makes the namespace's mounts private: the tmpfs is this command's alone.
  unshare -m sh -c 'mount -t tmpfs -o size="$0",mode=1777 tmpfs /dev/shm && exec "$@"' "$size" "$@" \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  cat "$tmp/out"
  cat "$tmp/err"
  status=0
  if [ "$expect" = ok ]; then
    [ $rc -eq 0 ] || { echo "FAILED: exit status $rc, expected 0"; status=1; }
  else
    [ $rc -ne 0 ] || { echo "FAILED: exit status 0, expected an error"; status=1; }
    [ $rc -lt 128 ] || { echo "FAILED: exit status $rc: killed by a signal"; status=1; }
  fi
  if grep -qi -e "bus error" -e "SIGBUS" -e "signal 7" "$tmp/out" "$tmp/err"; then
    echo "FAILED: a process died of SIGBUS"
    status=1
  fi
  printf '%s' "$texts" | while IFS= read -r text; do
    [ -z "$text" ] && continue
    grep -qF -- "$text" "$tmp/out" "$tmp/err" || echo "FAILED: the output does not say '$text'"
  done | tee "$tmp/missing"
  [ -s "$tmp/missing" ] && status=1
  exit $status
  ;;
squat)
  run=$1 np=$2 prog=$3
  chmod 777 "$tmp"
  # The attacker learns the job id (as one can a PMIx namespace's) and squats every rank's names,
  # old form and a guess at the new one, before any rank gets to MPI_Init: each rank's wrapper
  # publishes the id and waits for the squat.
  cat >"$tmp/rank.sh" <<EOS
#!/bin/sh
echo "\$TAKYON_RUN_JOB_ID \$TAKYON_RUN_SIZE" > "$tmp/job.\$TAKYON_RUN_RANK"
mv "$tmp/job.\$TAKYON_RUN_RANK" "$tmp/job" 2>/dev/null
n=0
while [ ! -e "$tmp/squatted" ] && [ \$n -lt 1000 ]; do sleep 0.01; n=\$((n + 1)); done
exec "\$@"
EOS
  cat >"$tmp/attacker.sh" <<EOS
#!/bin/sh
umask 0
while [ ! -s "$tmp/job" ]; do sleep 0.01; done
read job size < "$tmp/job"
r=0
while [ \$r -lt \$size ]; do
  : > "/dev/shm/takyon-mpi-\$job-\$r"
  : > "/dev/shm/takyon-mpi-\$job-\$r-00000000000000000000000000000000"
  r=\$((r + 1))
done
: > "$tmp/squatted"
EOS
  chmod 755 "$tmp/rank.sh" "$tmp/attacker.sh"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$tmp/attacker.sh" &
  attacker=$!
  # The victim: a third user, for whom /dev/shm's sticky bit makes the squatter's names unremovable.
  setpriv --reuid=65533 --regid=65533 --clear-groups "$run" -n "$np" "$tmp/rank.sh" "$prog" \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  kill $attacker 2>/dev/null
  wait $attacker 2>/dev/null
  cat "$tmp/out" "$tmp/err"
  [ -e "$tmp/squatted" ] || { echo "FAILED: the attacker never squatted"; rc=1; }
  read job size < "$tmp/job"
  status=0
  [ $rc -eq 0 ] || { echo "FAILED: the job exited with $rc among squatted names"; status=1; }
  [ -n "$job" ] || { echo "FAILED: no job id noted"; exit 1; }
  squatted=$(find /dev/shm -maxdepth 1 -name "takyon-mpi-$job-*" -uid 65534 | wc -l)
  [ "$squatted" -eq $((2 * np)) ] ||
    { echo "FAILED: $squatted of the squatter's $((2 * np)) files are left"; status=1; }
  left=$(find /dev/shm -maxdepth 1 -name "takyon-mpi-$job-*" ! -uid 65534)
  [ -z "$left" ] || { echo "FAILED: inboxes left behind: $left"; status=1; }
  find /dev/shm -maxdepth 1 -name "takyon-mpi-$job-*" -delete
  exit $status
  ;;
*)
  echo "usage: shm_env.sh full <size> <ok|fail> [text...] -- cmd... | squat <takyon-run> <np> <program>" >&2
  exit 2
  ;;
esac
