# SPDX-License-Identifier: MIT
"""What takyon-report runs. A unit is one program run per repetition: the path-API bench
(takyon-bench over every provider, with ucx_perftest beside the Ucx ones), or one MPI benchmark
program (mpi_p2p or mpi_coll) under one launcher configuration. Every unit keeps the parsed rows of
its successful runs, its failures with their reasons, and its exact command."""
import csv
import json
import os
import shutil
import subprocess
import time

from .util import cpu_probe, run_job, tail

# (name, side, description, mpirun arguments). "side" picks the build: takyon or ompi.
MPI_COMPONENTS = [
    ("takyon", "takyon", "libtakyon_mpi under takyon-run", None),
    ("ompi-ob1-vader", "ompi", "Open MPI ob1+vader, no CMA",
     ["--mca", "pml", "ob1", "--mca", "btl", "self,vader", "--mca", "btl_vader_single_copy_mechanism", "none"]),
    ("ompi-ob1-vader-cma", "ompi", "Open MPI ob1+vader+CMA", ["--mca", "pml", "ob1", "--mca", "btl", "self,vader"]),
    ("ompi-ucx", "ompi", "Open MPI pml ucx",
     ["--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any", "--mca", "pml_ucx_devices", "any"]),
    ("ompi-default", "ompi", "Open MPI default configuration", []),
]
P2P_TESTS = ("latency", "bandwidth", "bibw", "msgrate")
# mpi_rma (one-sided, np 2) runs under its own Open MPI configurations: the one-sided component (osc)
# decides its figures. Found on Debian 12's Open MPI 4.1.4: osc sm (direct loads and stores in
# MPI_Win_allocate's shared memory) is fastest for every pattern; osc ucx needs pml ucx; the default
# (osc rdma over vader) segfaults in MPI_Compare_and_swap, so that configuration leaves the test out
# ("tests" below; None: all).
RMA_TESTS = ("put_latency", "get_latency", "put_bw", "get_bw", "put_bibw", "acc_latency", "fetch_and_op",
             "compare_and_swap", "fence", "pscw")
RMA_COMPONENTS = [
    ("takyon", "takyon", "libtakyon_mpi under takyon-run", None, None),
    ("ompi-osc-sm", "ompi", "Open MPI osc sm", ["--mca", "osc", "sm"], None),
    ("ompi-osc-ucx", "ompi", "Open MPI osc ucx, pml ucx",
     ["--mca", "osc", "ucx", "--mca", "pml", "ucx", "--mca", "pml_ucx_tls", "any", "--mca", "pml_ucx_devices", "any"],
     None),
    ("ompi-osc-pt2pt", "ompi", "Open MPI osc pt2pt", ["--mca", "osc", "pt2pt"], None),
    ("ompi-osc-rdma", "ompi", "Open MPI osc rdma over vader (the default; without compare_and_swap, which "
     "segfaults there)", ["--mca", "osc", "rdma", "--mca", "btl", "self,vader"],
     tuple(t for t in RMA_TESTS if t != "compare_and_swap")),
]
# mpi_p2p tests that use more than 2 ranks (every rank i < n/2 streams to i + n/2): run at every --np.
MULTI_RANK_P2P_TESTS = ("msgrate",)
# The collectives are not listed here: mpi_coll runs its default set (or --coll-tests) and the report
# takes the tests from what it writes, so a collective added to mpi_coll appears without a change here.


class Unit:
    """Common state: name, status bookkeeping, rows."""

    def __init__(self, name, suite, component, description):
        self.name, self.suite, self.component, self.description = name, suite, component, description
        self.reason = None      # set when the unit cannot run at all (skipped or failed up front)
        self.skipped = False    # True: left out on purpose (reason says why), not a failure
        self.failures = []      # one reason per failed repetition
        self.test_failures = {}  # test -> reason (e.g. a collective the library does not implement)
        self.runs_ok = 0
        self.rows = []
        self.seconds = []
        self.info = {}

    def status(self):
        if self.skipped:
            return "skipped"
        if self.reason or self.runs_ok == 0:
            return "failed"
        return "partial" if self.failures or self.test_failures else "ok"

    def status_reason(self):
        if self.reason:
            return self.reason
        if self.runs_ok == 0 and self.failures:
            return self.failures[0]
        parts = []
        if self.failures:
            parts.append(f"{len(self.failures)} of {len(self.failures) + self.runs_ok} runs failed: {self.failures[0]}")
        for test, why in self.test_failures.items():
            parts.append(f"{test}: {why}")
        return "; ".join(parts) or None

    def run(self, rep, runs_dir, timeout):
        """One repetition: returns (ok, seconds, reason) and records rows or the failure."""
        t0 = time.perf_counter()
        ok, reason = self._run(rep, runs_dir, timeout)
        dt = time.perf_counter() - t0
        self.seconds.append(dt)
        if ok:
            self.runs_ok += 1
        else:
            self.failures.append(reason)
        return ok, dt, reason

    @staticmethod
    def _job(cmd, timeout, txt_path):
        """Runs cmd and keeps its output as it came in txt_path (stderr after a "# stderr:" line).
        Returns (result, None), or (None, reason) when it timed out or could not start."""
        try:
            r = run_job(cmd, timeout)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {timeout:g} s: {' '.join(cmd)}"
        except OSError as e:
            return None, f"cannot start {cmd[0]}: {e}"
        with open(txt_path, "w") as f:
            f.write(r.stdout)
            if r.stderr:
                f.write("# stderr:\n" + r.stderr)
        return r, None


class MpiUnit(Unit):
    """One MPI program at one rank count under one component; `tests` is the program's --tests
    (None: the program's default set)."""

    def __init__(self, component, suite, np, tests, args):
        name, side, description, mca = component
        super().__init__(f"{name}/{suite}/np{np}", suite, name, description)
        self.side, self.mca, self.args, self.np, self.tests = side, mca, args, np, tests
        self.sizes = {"mpi_p2p": args.p2p_sizes, "mpi_rma": getattr(args, "rma_sizes", None)}.get(suite, args.coll_sizes)
        cores = os.cpu_count() or 1
        if suite == "mpi_coll" and np > cores and args.oversubscribed_coll_max is not None:
            # The quick report: oversubscribed ranks take turns on the cores, and the largest sizes cost the
            # most there; they are swept by --full (or an explicit --coll-sizes).
            top = args.oversubscribed_coll_max
            self.sizes = (min(self.sizes[0], top), min(self.sizes[1], top))
        self.prog = os.path.join(args.prog_dir, side, suite)
        self.launcher = args.takyon_run if side == "takyon" else args.mpirun
        if not shutil.which(self.launcher):
            what = "takyon-run" if side == "takyon" else "Open MPI's mpirun"
            self.reason = f"{what} not found: {self.launcher}"
        elif not os.access(self.prog, os.X_OK):
            hint = " (Open MPI's mpicc was not found when Takyon was built)" if side == "ompi" else \
                " (libtakyon_mpi declares no MPI_Win_create: no one-sided functions yet)" \
                if suite == "mpi_rma" else ""
            self.reason = f"benchmark program not built: {self.prog}{hint}"

    def command(self, csv_path=None):
        """The run's command; by default with the CSV named as in runs/, K standing for the repetition."""
        csv_path = csv_path or os.path.join("runs", f"{self.component}.{self.suite}.np{self.np}.repK.csv")
        a = self.args
        cores = os.cpu_count() or 1
        bind = "core" if self.np <= cores else "none"
        if self.side == "takyon":
            cmd = [self.launcher, "-n", str(self.np), "--bind-to", bind, self.prog]
        else:
            cmd = [self.launcher, "-np", str(self.np), "--bind-to", bind]
            if os.geteuid() == 0:
                cmd.insert(1, "--allow-run-as-root")
            if self.np > cores:
                cmd.insert(1, "--oversubscribe")
            cmd += self.mca + [self.prog]
        lo, hi = self.sizes
        scale = {"mpi_p2p": a.p2p_scale, "mpi_rma": getattr(a, "rma_scale", None)}.get(self.suite, a.coll_scale)
        cmd += ["--sizes", f"{lo}:{hi}"]
        if self.tests:
            cmd += ["--tests", ",".join(self.tests)]
        return cmd + ["--scale", f"{scale:g}", "--label", self.component, "--csv", csv_path]

    def _run(self, rep, runs_dir, timeout):
        base = os.path.join(runs_dir, f"{self.component}.{self.suite}.np{self.np}.rep{rep}")
        csv_path = base + ".csv"
        if os.path.exists(csv_path):
            os.remove(csv_path)
        probe = cpu_probe(self.args.takyon_bench)  # how far apart the CPUs are right now
        r, why = self._job(self.command(csv_path), timeout, base + ".txt")  # the OSU-format text
        if r is None:
            return False, why
        for line in r.stdout.splitlines():
            if line.startswith("# library: "):
                self.info["library"] = line[len("# library: "):]
            elif line.startswith("# compiler: "):
                self.info["compiler"] = line[len("# compiler: "):]
            elif line.startswith("# FAILED "):
                test, _, why = line[len("# FAILED "):].partition(": ")
                self.test_failures.setdefault(test, why)
        if r.returncode != 0:
            return False, f"exit code {r.returncode}: {tail(r.stderr or r.stdout)}"
        try:
            with open(csv_path) as f:
                rows = list(csv.DictReader(f))
        except OSError as e:
            if self.test_failures:  # every test failed: nothing to write
                return True, None
            return False, f"no CSV written ({e})"
        for row in rows:
            row["rep"] = rep
            row["probe_ns"] = probe
        self.rows.extend(rows)
        return True, None


class PathBenchUnit(Unit):
    """takyon-bench over the path API; with --vs-ucx-perftest, ucx_perftest beside the Ucx ones."""

    def __init__(self, args):
        super().__init__("takyon-bench/path", "path", "takyon-bench",
                         "Takyon path API, every provider (takyon-bench)")
        self.args = args
        self.bench = args.takyon_bench
        self.ucx_perftest = args.ucx_perftest and shutil.which("ucx_perftest") is not None
        if not self.bench or not os.access(self.bench, os.X_OK):
            self.reason = f"takyon-bench not found: {self.bench}"
        if args.ucx_perftest and not self.ucx_perftest:
            self.info["ucx_perftest"] = "ucx_perftest not found (ucx-utils): no raw UCX comparison"

    def command(self, json_path=os.path.join("runs", "takyon-bench.repK.json")):
        a = self.args
        cmd = [self.bench, "--provider", a.providers, "--mode", a.path_mode, "--min-bytes", str(a.path_sizes[0]),
               "--max-bytes", str(a.path_sizes[1])]
        if a.quick:
            cmd.append("--quick")
        if self.ucx_perftest:
            cmd.append("--vs-ucx-perftest")
        return cmd + ["--json", json_path]

    def _run(self, rep, runs_dir, timeout):
        base = os.path.join(runs_dir, f"takyon-bench.rep{rep}")
        json_path = base + ".json"
        r, why = self._job(self.command(json_path), timeout, base + ".txt")
        if r is None:
            return False, why
        if r.returncode not in (0, 1):  # 1: a target missed (only with --check-targets)
            return False, f"exit code {r.returncode}: {tail(r.stderr or r.stdout)}"
        try:
            with open(json_path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            return False, f"no usable JSON ({e})"
        for key in ("git_describe", "build_type", "compiler"):
            if key in doc.get("machine", {}):
                self.info[key] = doc["machine"][key]
        if doc.get("config", {}).get("ucx_perftest"):
            self.info["ucx_perftest"] = doc["config"]["ucx_perftest"]
        for rec in doc.get("records", []):
            rec = dict(rec)
            rec["rep"] = rep
            self.rows.append(rec)
        for err in doc.get("errors", []) or []:
            self.test_failures.setdefault(str(err)[:60], str(err))
        return True, None


def make_units(args):
    units = []
    if not args.no_path:
        units.append(PathBenchUnit(args))
    if "mpi_rma" in args.suites:
        for name, side, description, mca, tests in RMA_COMPONENTS:
            if name in args.rma_configs:
                units.append(MpiUnit((name, side, description, mca), "mpi_rma", 2, tests, args))
    for comp in args.mpi_components:
        for suite in (s for s in args.suites if s != "mpi_rma"):
            for np in args.np:
                if suite == "mpi_coll":
                    units.append(MpiUnit(comp, suite, np, args.coll_tests, args))
                    continue
                # mpi_p2p: every test at 2 ranks; at other rank counts the multi-rank ones only.
                tests = [t for t in args.p2p_tests if np == 2 or t in MULTI_RANK_P2P_TESTS]
                if tests:
                    units.append(MpiUnit(comp, suite, np, tests, args))
            two_rank = [t for t in args.p2p_tests if t not in MULTI_RANK_P2P_TESTS]
            if suite == "mpi_p2p" and 2 not in args.np and two_rank:  # those run at 2 ranks anyway
                units.append(MpiUnit(comp, suite, 2, two_rank, args))
    return units
