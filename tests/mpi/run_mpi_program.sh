#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs an MPI test program under a launcher and checks how it ended (ctest driver for tests/mpi).
#   run_mpi_program.sh run <expect> -- <launcher and program...>
#       expect: ok (exit 0), fail (any non-zero exit), rc=<n> (exactly n)
#   run_mpi_program.sh compare <np> <takyon-run> <takyon-built program> <mpirun> <mpicc-built program> [args]
#       both runs must exit 0 and print the same stdout
set -u
mode=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case "$mode" in
run)
  expect=$1
  shift
  [ "$1" = "--" ] && shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  cat "$tmp/out"
  case "$expect" in
  ok) ok=$([ $rc -eq 0 ] && echo 1 || echo 0) ;;
  fail) ok=$([ $rc -ne 0 ] && echo 1 || echo 0) ;;
  rc=*) ok=$([ $rc -eq "${expect#rc=}" ] && echo 1 || echo 0) ;;
  *) echo "run_mpi_program.sh: unknown expectation '$expect'" >&2; exit 2 ;;
  esac
  if [ "$ok" != 1 ]; then
    echo "FAILED: exit status $rc, expected $expect: $*" >&2
    cat "$tmp/err" >&2
    exit 1
  fi
  # stderr of an expected failure is part of the story (the error message names the function)
  [ "$expect" != ok ] && head -c 4000 "$tmp/err"
  exit 0
  ;;
compare)
  np=$1 takyon_run=$2 takyon_prog=$3 mpirun=$4 ompi_prog=$5
  shift 5
  "$takyon_run" -n "$np" "$takyon_prog" "$@" >"$tmp/a_out" 2>"$tmp/a_err"
  a_rc=$?
  "$mpirun" --allow-run-as-root --oversubscribe -np "$np" "$ompi_prog" "$@" >"$tmp/b_out" 2>"$tmp/b_err"
  b_rc=$?
  status=0
  if [ $a_rc -ne 0 ]; then echo "FAILED: libtakyon_mpi run exited $a_rc" >&2; cat "$tmp/a_err" >&2; status=1; fi
  if [ $b_rc -ne 0 ]; then echo "FAILED: Open MPI run exited $b_rc" >&2; cat "$tmp/b_err" >&2; status=1; fi
  if ! diff -u "$tmp/b_out" "$tmp/a_out" >"$tmp/diff"; then
    echo "FAILED: outputs differ (--- Open MPI, +++ libtakyon_mpi):" >&2
    cat "$tmp/diff" >&2
    status=1
  fi
  [ $status -eq 0 ] && cat "$tmp/a_out"
  exit $status
  ;;
*)
  echo "usage: run_mpi_program.sh run <ok|fail|rc=N> -- cmd... | compare np takyon-run prog mpirun ompi-prog" >&2
  exit 2
  ;;
esac
