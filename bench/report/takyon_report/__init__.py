# SPDX-License-Identifier: MIT
"""takyon-report: every Takyon layer against Open MPI and raw UCX on this machine, in one report."""
