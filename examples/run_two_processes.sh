#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs endpoint A and endpoint B of an example as two separately started processes:
#   <program> <a-flag> [args...] <provider>   and   <program> <b-flag> [args...] <provider>
# and fails if either fails. "@ID@" in the provider becomes an ID derived from this shell's pid.
# Usage: run_two_processes.sh <program> <a-flag> <b-flag> "<provider> -ID=<n>" [args...]
#   e.g. run_two_processes.sh hello_mp A B "InterProcessMemcpy -ID=4"
#        run_two_processes.sh multi_buffer -A -B "InterProcessMemcpy -ID=5" -event
set -u
if [ $# -lt 4 ]; then
  echo "usage: $0 <program> <a-flag> <b-flag> \"<provider> -ID=<n>\" [args...]" >&2
  exit 2
fi
program=$1
flag_a=$2
flag_b=$3
provider=$4
shift 4
id=$(( ($$ & 0x3FFFFF) * 1024 + 1023 ))
case $provider in
  *@ID@*) provider="${provider%%@ID@*}$id${provider#*@ID@}" ;;
esac
"$program" "$flag_a" "$@" "$provider" &
pid_a=$!
"$program" "$flag_b" "$@" "$provider"
status_b=$?
wait "$pid_a"
status_a=$?
echo "endpoint A exited with $status_a, endpoint B with $status_b"
[ "$status_a" -eq 0 ] && [ "$status_b" -eq 0 ]
