#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a program with every "@ID@" in its arguments replaced by a path ID that no other running
# process uses: derived from this process's pid, which the program keeps (exec). The test support
# library derives its IDs the same way ((pid << 10) | counter), so IDs never collide across ctest -j.
# Usage: run_with_unique_id.sh <program> [args with @ID@...]
id=$(( ($$ & 0x3FFFFF) * 1024 + 1023 ))
for arg do
  shift
  case $arg in
    *@ID@*) arg="${arg%%@ID@*}$id${arg#*@ID@}" ;;
  esac
  set -- "$@" "$arg"
done
exec "$@"
