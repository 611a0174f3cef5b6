#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the halo example's forms (an MPI kernel and a path kernel, each built against libtakyon_mpi
# and, when given, Open MPI) with the same arguments and checks they print the same result.
#   run_halo_forms.sh <np> <takyon-run> <halo_mpi> <halo_paths> [<mpirun> <ompi halo_mpi> <ompi halo_paths>] -- [args]
set -u
np=$1 takyon_run=$2 mpi_prog=$3 paths_prog=$4
shift 4
mpirun="" ompi_mpi="" ompi_paths=""
if [ "$1" != "--" ]; then
  mpirun=$1 ompi_mpi=$2 ompi_paths=$3
  shift 3
fi
shift # --
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
run() { # <name> <command...>: keeps the first line of stdout as the form's result
  name=$1
  shift
  if ! "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
    echo "FAILED: $name: $*" >&2
    cat "$tmp/$name.err" >&2
    status=1
  fi
  head -n 1 "$tmp/$name.out" >"$tmp/$name.result"
  echo "$name: $(cat "$tmp/$name.result")"
}
run takyon-mpi-kernel "$takyon_run" -n "$np" "$mpi_prog" "$@"
run takyon-path-kernel "$takyon_run" -n "$np" "$paths_prog" "$@"
if [ -n "$mpirun" ]; then
  run openmpi-mpi-kernel "$mpirun" --allow-run-as-root --oversubscribe -np "$np" "$ompi_mpi" "$@"
  run openmpi-path-kernel "$mpirun" --allow-run-as-root --oversubscribe -np "$np" "$ompi_paths" "$@"
fi
for f in "$tmp"/*.result; do
  if ! cmp -s "$f" "$tmp/takyon-mpi-kernel.result" || [ ! -s "$f" ]; then
    echo "FAILED: $(basename "$f" .result) differs from the MPI kernel under libtakyon_mpi" >&2
    status=1
  fi
done
exit $status
