#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A private one-node Slurm for the MPI tests: munged, slurmctld and slurmd, all state under <dir>.
#
#   slurm_cluster.sh start <dir>   start the cluster; on success <dir>/srun runs srun against it and
#                                  <dir>/env holds `export SLURM_CONF=...` for the other commands
#   slurm_cluster.sh stop <dir>    stop it (by the PIDs in its pid files); idempotent; keeps the logs
#
# Nothing outside <dir> is touched and nothing is found by name: a system Slurm or munged may run
# beside it. The ports are picked free per run, the node is this host on 127.0.0.1.
# Programs come from PATH (plus /usr/sbin); TAKYON_SLURMCTLD, TAKYON_SLURMD, TAKYON_MUNGED and
# TAKYON_SRUN override them. TAKYON_SLURM_START_TIMEOUT (s, default 30) bounds the wait for the node.
set -euo pipefail

readonly cluster_name=takyon
self=$(realpath -- "$0")
readonly self

usage() {
  echo "usage: $0 start|stop <dir>" >&2
  exit 2
}

die() {
  echo "slurm_cluster: error: $*" >&2
  exit 1
}

# find_prog <override-var-value> <name>: the override, else the name on PATH or in /usr/sbin, /sbin.
find_prog() {
  local override=$1 name=$2 p
  if [[ -n $override ]]; then
    echo "$override"
    return 0
  fi
  if p=$(PATH="$PATH:/usr/sbin:/sbin" command -v "$name"); then
    echo "$p"
    return 0
  fi
  return 1
}

# alive <pid> [<comm>]: whether <pid> runs (and is <comm>). A zombie has exited already (its
# parent, often init, just has not reaped it yet).
alive() {
  local pid=$1 comm=${2:-} state
  [[ -n $pid && -r /proc/$pid/status ]] || return 1
  if [[ -n $comm ]]; then
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$comm" ]] || return 1
  fi
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$pid/status" 2>/dev/null) || return 1
  [[ -n $state && $state != Z ]]
}

# pid_of <pidfile> [<comm>]: print the PID in <pidfile> if that process runs (and is <comm>).
pid_of() {
  local pidfile=$1 comm=${2:-} pid
  # The daemon may remove its pid file as we read it.
  pid=$( { tr -cd '0-9' <"$pidfile"; } 2>/dev/null) || return 1
  alive "$pid" "$comm" || return 1
  echo "$pid"
}

# dump_logs <dir>: the tail of every daemon log, for a failed start.
dump_logs() {
  local dir=$1 f
  for f in "$dir/munge/munged.out" "$dir/munge/munged.log" "$dir/log/slurmctld.out" \
    "$dir/log/slurmctld.log" "$dir/log/slurmd.out" "$dir/log/slurmd.log"; do
    if [[ -s $f ]]; then
      echo "----- $f (last 40 lines) -----" >&2
      tail -n 40 "$f" >&2
    fi
  done
}

# used_ports: every local TCP port bound now (IPv4 and IPv6), one per line, decimal. (In awk:
# thousands of TIME_WAIT lines are common, too many for a shell loop.)
used_ports() {
  local f
  for f in /proc/net/tcp /proc/net/tcp6; do
    [[ -r $f ]] && cat "$f"
  done | awk 'NR > 1 && $2 ~ /:/ {
    hex = toupper(substr($2, index($2, ":") + 1)); port = 0
    for (i = 1; i <= length(hex); i++) port = port * 16 + index("0123456789ABCDEF", substr(hex, i, 1)) - 1
    print port
  }'
}

# listening <port>: whether a TCP socket listens on <port> (any address).
listening() {
  local hex
  hex=$(printf '%04X' "$1")
  grep -qE "^ *[0-9]+: [0-9A-F]+:$hex [0-9A-F]+:0000 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# free_port <taken...>: a random port below the ephemeral range that no socket uses and is not
# among <taken>. Another run may still pick it before we bind it; the start then fails with logs.
free_port() {
  local used port i
  used=" $(used_ports | tr '\n' ' ') $* "
  for ((i = 0; i < 200; i++)); do
    port=$((20000 + RANDOM % 12000))
    if [[ $used != *" $port "* ]]; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

# stop_daemon <pidfile> <comm>: SIGTERM, wait up to 10 s, then SIGKILL and wait up to 5 s more.
# Waits on the PID, not the file: slurmd removes its pid file long before it exits.
stop_daemon() {
  local pidfile=$1 comm=$2 pid i
  pid=$(pid_of "$pidfile" "$comm") || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 100; i++)); do
    alive "$pid" "$comm" || return 0
    sleep 0.1
  done
  echo "slurm_cluster: $comm (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL" >&2
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    alive "$pid" "$comm" || return 0
    sleep 0.1
  done
  echo "slurm_cluster: error: $comm (pid $pid) still runs" >&2
  return 1
}

# write_idle_srun <dir>: <dir>/srun for while no cluster runs: it fails at once and says why (a real
# srun would retry the dead controller for a long while). CMake writes the same at configure time.
write_idle_srun() {
  local dir=$1
  rm -f "$dir/srun"
  {
    echo '#!/usr/bin/env bash'
    printf 'echo %q >&2\n' "srun: the test cluster in $dir is not running; start it with $self start $dir (ctest does, as fixture takyon_slurm)"
    echo 'exit 1'
  } >"$dir/srun"
  chmod 0755 "$dir/srun"
}

do_stop() {
  local dir=$1 scancel squeue i rc=0
  [[ -d $dir ]] || return 0
  # Cancel what still runs, so no slurmstepd outlives slurmd (bounded: the controller may be gone).
  if pid_of "$dir/run/slurmctld.pid" slurmctld >/dev/null && [[ -f $dir/slurm.conf ]] &&
    scancel=$(find_prog "" scancel) && squeue=$(find_prog "" squeue); then
    export SLURM_CONF="$dir/slurm.conf"
    if [[ -n $(timeout 5 "$squeue" -h -o %i 2>/dev/null) ]]; then
      timeout 5 "$scancel" --full --quiet --user=root 2>/dev/null || true
      for ((i = 0; i < 100; i++)); do
        [[ -z $(timeout 5 "$squeue" -h -o %i 2>/dev/null) ]] && break
        sleep 0.1
      done
    fi
  fi
  stop_daemon "$dir/run/slurmd.pid" slurmd || rc=1
  stop_daemon "$dir/run/slurmctld.pid" slurmctld || rc=1
  stop_daemon "$dir/munge/munged.pid" munged || rc=1
  if [[ -e $dir/.slurm_cluster ]]; then
    write_idle_srun "$dir"
    rm -f "$dir/env"
  fi
  return "$rc"
}

# node_line <name>: the NodeName= line for this machine, from `slurmd -C` (CPUs and topology; no
# RealMemory: a VM's balloon can shrink it below the configured value, which drains the node).
node_line() {
  local name=$1 hw field out=""
  hw=$(timeout 10 "$slurmd" -C 2>/dev/null | head -n 1) || hw=""
  for field in CPUs Boards SocketsPerBoard CoresPerSocket ThreadsPerCore; do
    if [[ $hw =~ (^|[[:space:]])$field=([0-9]+) ]]; then
      out+=" $field=${BASH_REMATCH[2]}"
    fi
  done
  [[ $out == *CPUs=* ]] || out=" CPUs=$(nproc)"
  echo "NodeName=$name NodeAddr=127.0.0.1$out State=UNKNOWN"
}

do_start() {
  local dir=$1 t0 name sock ctld_port slurmd_port state elapsed
  t0=$EPOCHREALTIME
  slurmctld=$(find_prog "${TAKYON_SLURMCTLD:-}" slurmctld) || die "slurmctld not found"
  slurmd=$(find_prog "${TAKYON_SLURMD:-}" slurmd) || die "slurmd not found"
  munged=$(find_prog "${TAKYON_MUNGED:-}" munged) || die "munged not found"
  srun=$(find_prog "${TAKYON_SRUN:-}" srun) || die "srun not found"
  sinfo=$(find_prog "" sinfo) || die "sinfo not found"

  # slurm.conf has no quoting for its paths.
  [[ $dir != *[[:space:]#=]* ]] || die "'$dir': slurm.conf cannot hold a path with blanks, '#' or '='"
  sock="$dir/munge/munge.socket"
  # Unix socket paths hold 107 bytes: the munge socket, and slurmstepd's PMIx socket in the spool
  # directory (job and step IDs of up to 7 digits here). Say so plainly rather than fail obscurely.
  local longest="$dir/spool/stepd.slurm.pmix.1234567.1234567"
  ((${#sock} <= 107 && ${#longest} <= 107)) ||
    die "$dir is too long a path for the Unix sockets under it (${#longest} > 107 bytes): use a shorter one"
  mkdir -p "$dir"
  local daemon
  for daemon in run/slurmd.pid:slurmd run/slurmctld.pid:slurmctld munge/munged.pid:munged; do
    if pid_of "$dir/${daemon%%:*}" "${daemon##*:}" >/dev/null; then
      die "a cluster still runs in $dir (${daemon##*:}); run: $self stop $dir"
    fi
  done
  # Only a directory of ours is cleared: empty, marked by an earlier start, or holding just the
  # placeholder srun that CMake writes.
  local entries
  entries=$(find "$dir" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' ')
  if [[ -n $entries && $entries != "srun " && ! -e $dir/.slurm_cluster ]]; then
    die "$dir holds files not made by $self ($entries); give an empty or new directory"
  fi
  # A fresh cluster each time: no state, spool or logs of an earlier one.
  rm -rf "$dir/munge" "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/slurm.conf" \
    "$dir/srun" "$dir/env"
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
  echo "A one-node Slurm of $self; it clears this directory on start." >"$dir/.slurm_cluster"
  # munged wants its socket directory searchable by all and writable by no one else.
  mkdir -m 0755 "$dir/munge"

  # Failing from here on: show the logs and stop whatever started.
  trap 'rc=$?; if ((rc != 0)); then dump_logs "$dir"; do_stop "$dir" || true; fi' EXIT

  # munged with its own key, socket, pid, log and seed files. It returns once its socket is ready.
  # --force: munged otherwise refuses a socket or seed file below a directory that is group-writable
  # (a umask 002 build tree) or not searchable by all (a 0700 home). Only root uses this munged,
  # and a bad key (e.g. too short) still stops it.
  local key="$dir/munge/munge.key"
  if command -v mungekey >/dev/null || [[ -x /usr/sbin/mungekey ]]; then
    PATH="$PATH:/usr/sbin" mungekey --create --bits=1024 --keyfile="$key" >/dev/null
  else
    dd if=/dev/urandom of="$key" bs=128 count=1 status=none
  fi
  chmod 0400 "$key"
  "$munged" --force --socket="$sock" --key-file="$key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" \
    </dev/null >>"$dir/munge/munged.out" 2>&1 ||
    die "munged failed to start (see $dir/munge/munged.log)"

  name=$(hostname -s)
  ctld_port=$(free_port) || die "no free port"
  slurmd_port=$(free_port "$ctld_port") || die "no free port"
  cat >"$dir/slurm.conf" <<EOF
# Written by slurm_cluster.sh: a one-node cluster for the Takyon MPI tests.
ClusterName=$cluster_name
SlurmctldHost=$name(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
EnforcePartLimits=ALL
SchedulerType=sched/builtin
MailProg=/bin/true
InactiveLimit=60
KillWait=5
MinJobAge=10
$(node_line "$name")
PartitionName=debug Nodes=$name Default=YES MaxNodes=1 MaxTime=30 State=UP OverSubscribe=FORCE:4
EOF
  export SLURM_CONF="$dir/slurm.conf"

  # Both daemons run in the foreground (-D) of their own session, so the PIDs are known at once
  # (a forking slurmd writes its pid file only once it reaches the controller: a failed start
  # could not stop it). Output goes to files, never to our stdout: ctest waits for every holder
  # of its pipe to close it.
  local limit=${TAKYON_SLURM_START_TIMEOUT:-30} t1=$EPOCHREALTIME
  cd "$dir" # so that the daemons hold no other directory
  setsid "$slurmctld" -D -c -f "$SLURM_CONF" </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
  echo $! >"$dir/run/slurmctld.pid"
  # Clients that find the controller's port closed retry only a second later (as does slurmd's
  # registration): wait until it listens, a few ms.
  while ! listening "$ctld_port"; do
    pid_of "$dir/run/slurmctld.pid" >/dev/null || die "slurmctld exited"
    elapsed=$(awk -v a="$t1" -v b="$EPOCHREALTIME" 'BEGIN { print int(b - a) }')
    ((elapsed < limit)) || die "slurmctld does not listen on port $ctld_port after ${limit} s"
    sleep 0.01
  done
  setsid "$slurmd" -D -f "$SLURM_CONF" -N "$name" </dev/null >>"$dir/log/slurmd.out" 2>&1 &
  echo $! >"$dir/run/slurmd.pid"

  while true; do
    state=$(timeout 5 "$sinfo" -h -N -n "$name" -o %T 2>/dev/null) || state=""
    [[ $state == idle ]] && break
    # A drained or invalid node stays so: say why now (e.g. fewer CPUs than configured).
    if [[ $state == drain* || $state == inval* ]]; then
      die "node $name is $state: $(timeout 5 "$sinfo" -h -N -n "$name" -o %E 2>/dev/null || true)"
    fi
    elapsed=$(awk -v a="$t1" -v b="$EPOCHREALTIME" 'BEGIN { print int(b - a) }')
    if ((elapsed >= limit)); then
      die "node $name is not idle after ${limit} s (state: '${state:-no answer}')"
    fi
    # A daemon that died will not come back: fail now, not at the timeout. (No name check: our
    # children may not have exec'd yet.)
    for daemon in munge/munged.pid:munged run/slurmctld.pid:slurmctld run/slurmd.pid:slurmd; do
      pid_of "$dir/${daemon%%:*}" >/dev/null || die "${daemon##*:} exited"
    done
    sleep 0.05
  done

  cat >"$dir/srun" <<EOF
#!/usr/bin/env bash
# srun against the Takyon test cluster in $dir (written by slurm_cluster.sh).
# The variables of a job on another cluster (a CI allocation) would misdirect srun: drop them.
if [[ -n \${SLURM_CLUSTER_NAME:-} && \$SLURM_CLUSTER_NAME != $cluster_name ]]; then
  while read -r v; do unset "\$v"; done < <(compgen -e SLURM_)
fi
export SLURM_CONF=$(printf %q "$SLURM_CONF")
exec $(printf %q "$srun") "\$@"
EOF
  chmod 0755 "$dir/srun"
  printf 'export SLURM_CONF=%q\n' "$SLURM_CONF" >"$dir/env"

  trap - EXIT
  echo "slurm_cluster: node $name idle; slurmctld on 127.0.0.1:$ctld_port, slurmd on :$slurmd_port"
  echo "slurm_cluster: setup took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s"
  echo "slurm_cluster: srun wrapper: $dir/srun   environment: source $dir/env"
}

(($# == 2)) || usage
cmd=$1
dir=$(realpath -m -- "$2")
case $cmd in
  start) do_start "$dir" ;;
  stop) do_stop "$dir" ;;
  *) usage ;;
esac
