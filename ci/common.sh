#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Shared by ci/test.sh and ci/main.sh: the Debian packages the build needs, installed when missing.

# The one list of packages (Debian 12 names). Add to it here, nowhere else.
TAKYON_CI_PACKAGES=(
  build-essential # gcc, g++, make, libc headers
  cmake           # >= 3.25 (Debian 12 has 3.25)
  ninja-build     # ci/test.sh builds with Ninja (shorter builds than make)
  pkg-config      # the install test builds a consumer through takyon.pc
  libgtest-dev    # GoogleTest (GTest::gtest, GTest::gtest_main)
  iproute2        # ip netns: the multi-host socket tests
  util-linux      # setpriv, unshare, prlimit: another user, a private /dev/shm, low fd limits in the tests
  python3         # a plain UDP program that talks to the datagram providers in the tests
  python3-matplotlib # takyon-report's plots (the README's main command)
  socat           # another one
  libucx-dev      # the Ucx provider (UCX 1.13 on Debian 12)
  ucx-utils       # ucx_info, ucx_perftest: the bench compares against it
  clang           # libFuzzer: the fuzz targets (graph parser, graph loader, interconnect strings)
  clang-format    # ci/lint.sh: every C and C++ file formatted as .clang-format says
  clang-tidy      # ci/lint.sh: the static checks of .clang-tidy
  libclang-rt-14-dev # libFuzzer's runtime (not pulled in by clang without recommends)
  openmpi-bin     # mpirun: the MPI tests launch under it, and the bench compares with Open MPI
  libopenmpi-dev  # Open MPI's mpicc: every MPI test program is also built with it
  libpmix-dev     # PMIx: libtakyon_mpi's bootstrap under mpirun and srun --mpi=pmix
  slurm-wlm       # slurmctld, slurmd, srun: the tests run MPI programs under a one-node Slurm
  munge           # Slurm's authentication, with its own key and socket per test run
  dpkg-dev        # dpkg-source: ci/mpich-testsuite.sh unpacks MPICH's source package (its test suite)
)
# What ci/mpich-testsuite.sh needs of them: Takyon's Release build, Open MPI, the source package.
# shellcheck disable=SC2034  # used by ci/mpich-testsuite.sh
TAKYON_CI_MPICH_PACKAGES=(build-essential cmake ninja-build pkg-config python3 libucx-dev libpmix-dev
  openmpi-bin libopenmpi-dev dpkg-dev)

takyon_ci_log() { printf '[takyon-ci %(%H:%M:%S)T] %s\n' -1 "$*"; }

# Installs the packages of TAKYON_CI_PACKAGES that dpkg does not report as installed.
takyon_ci_install_packages() { takyon_ci_install_these "${TAKYON_CI_PACKAGES[@]}"; }

# takyon_ci_install_these <package...>: installs those of the packages that dpkg does not report
# as installed. Runs `apt-get update` only if something is missing. Needs root (or sudo) only then.
takyon_ci_install_these() {
  local missing=() package wanted=("$@")
  for package in "${wanted[@]}"; do
    if ! dpkg -s "$package" 2>/dev/null | grep -q '^Status: install ok installed'; then
      missing+=("$package")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    takyon_ci_log "packages: all present (${wanted[*]})"
    return 0
  fi
  takyon_ci_log "packages: installing ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "takyon-ci: missing packages (${missing[*]}) and not root; install them or run as root" >&2
      return 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}
