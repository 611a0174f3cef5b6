#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the soak: takyon-soak for each provider, takyon-soak-mpi under takyon-run; non-zero if any fails.
#
#   tests/soak/run_soak.sh <build_dir> [--messages N] [--seconds S] [--seed N] [--providers LIST] [--np "2 3"]
#
#   --messages  messages per provider (A to B; each answered on connected providers) and per MPI run
#               (all ranks together); default 1000000
#   --seconds   stop each run after about S seconds even if fewer messages went (default: no limit)
#   --providers comma-separated provider names and "mpi"; "providers" is every provider of
#               `takyon-soak --list` (from the provider table), "all" (default) those and mpi
#   --np        rank counts of the MPI runs (default "2 3")
#   --seed      the seed of every random choice (default 1); the same seed repeats a run
set -uo pipefail
usage() {
  sed -n '5,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
[[ $# -ge 1 ]] || usage
build=$1
shift
messages=1000000 seconds=0 seed=1 providers=all nps="2 3"
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || usage
  case $1 in
    --messages) messages=$2 ;;
    --seconds) seconds=$2 ;;
    --seed) seed=$2 ;;
    --providers) providers=$2 ;;
    --np) nps=$2 ;;
    *) usage ;;
  esac
  shift 2
done
soak=$build/tests/soak/takyon-soak
soak_mpi=$build/tests/soak/takyon-soak-mpi
launcher=$build/bin/takyon-run
[[ -x $soak ]] || { echo "run_soak.sh: $soak not built (cmake --build $build --target takyon-soak)" >&2; exit 2; }

list=""
for p in ${providers//,/ }; do
  case $p in
    all) list+=" $("$soak" --list | tr '\n' ' ') mpi" ;;
    providers) list+=" $("$soak" --list | tr '\n' ' ')" ;;
    *) list+=" $p" ;;
  esac
done

failed=()
summary=()
for p in $list; do
  if [[ $p == mpi ]]; then
    if [[ ! -x $soak_mpi || ! -x $launcher ]]; then
      echo "run_soak.sh: $soak_mpi or $launcher not built (targets takyon-soak-mpi, takyon-run)" >&2
      failed+=("mpi (not built)")
      continue
    fi
    for np in $nps; do
      echo "== MPI, $np ranks: $launcher -n $np $soak_mpi --messages $messages --seconds $seconds --seed $seed"
      out=$("$launcher" -n "$np" "$soak_mpi" --messages "$messages" --seconds "$seconds" --seed "$seed" 2>&1)
      rc=$?
      echo "$out"
      summary+=("$(grep '^soak ' <<<"$out" | tail -n 1)")
      [[ $rc -eq 0 ]] || failed+=("mpi np $np (exit $rc)")
    done
    continue
  fi
  echo "== $p: $soak --provider $p --messages $messages --seconds $seconds --seed $seed"
  out=$("$soak" --provider "$p" --messages "$messages" --seconds "$seconds" --seed "$seed" 2>&1)
  rc=$?
  echo "$out"
  summary+=("$(grep '^soak ' <<<"$out" | tail -n 1)")
  [[ $rc -eq 0 ]] || failed+=("$p (exit $rc)")
done

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "all soak runs passed"
