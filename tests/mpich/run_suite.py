#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs MPICH's test suite (test/mpi of the mpich source package) under one MPI library, and
compares the results of two libraries against the expected-failure list.

Driven by ci/mpich-testsuite.sh, which does the set-up (source package, configured build trees):

  run_suite.py run --lib takyon --tree DIR --srcdir DIR --dirs pt2pt,coll \
      --launch 'takyon-run -n {np}' --results FILE --logs DIR
  run_suite.py report --results-dir DIR --dirs pt2pt,coll --expected tests/mpich/expected-failures.txt

A testlist entry is `program [np [key=value ...]]`, as MPICH's runtests reads it; an entry that
names a directory is that directory's own testlist. Keys used here:
  timeLimit=S   the test's time limit, relative to runtests' default of 180 s (--timeout scales it)
  arg=A         a program argument (repeated: in order)
  env=K=V       an environment variable for the run
  resultTest=T  TestStatus / TestErrFatal: the run must exit non-zero; TestStatusNoErrors: non-zero
                and " No Errors"
  strict=false  a test of MPICH's extensions: skipped, as runtests does in strict mode (the suite
                is configured with --enable-strictmpi, the mode for implementations other than MPICH)
  xfail=R       MPICH's own expected failures: ignored in strict mode, as runtests does
  mpiversion=V  the test needs MPI version V: skipped for a library whose mpi.h is older
  mpiexecarg=A  arguments for MPICH's mpiexec (hydra): not applicable to either launcher, ignored
  mem=G         memory the test needs in GB: skipped when the machine has less
A test passes when it exits 0 and prints a line " No Errors" (or, with resultTest, as above).
"""

import argparse
import csv
import json
import os
import re
import signal
import subprocess
import sys
import time

RUNTESTS_DEFAULT_LIMIT = 180.0  # runtests' default time limit, against which timeLimit= is read
NO_ERRORS = re.compile(r"^\s*No [Ee]rrors\s*$", re.M)


def log(msg):
    print(f"[mpich-testsuite {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------------------------------------
# Testlists


class Entry:
    def __init__(self, directory, program, np, opts):
        self.dir = directory  # e.g. "threads/pt2pt"
        self.program = program
        self.np = np
        self.opts = opts  # list of (key, value) as in the testlist, in order

    def values(self, key):
        return [v for k, v in self.opts if k == key]

    def value(self, key, default=None):
        vals = self.values(key)
        return vals[-1] if vals else default

    @property
    def name(self):
        """dir/program, plus the arguments and environment when the testlist has them: the id of
        the test (no spaces), unique together with np."""
        extra = [f"{k}={v}" for k, v in self.opts if k in ("arg", "env")]
        return f"{self.dir}/{self.program}" + ("," + ",".join(extra) if extra else "")

    @property
    def key(self):
        return f"{self.name} {self.np}"


def find_list(tree, srcdir, directory, listname):
    """The testlist as runtests finds it: the configured one in the build tree, else the source's."""
    for base in (tree, srcdir):
        path = os.path.join(base, directory, listname)
        if os.path.isfile(path) and os.path.getsize(path) > 0:
            return path
    return None


def read_entries(tree, srcdir, directory, lists):
    entries = []
    for listname in lists:
        path = find_list(tree, srcdir, directory, listname)
        if path is None:
            continue
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if not line or line.startswith("!"):
                    continue
                fields = line.split()
                program = fields[0]
                if os.path.isdir(os.path.join(tree, directory, program)):
                    entries += read_entries(tree, srcdir, f"{directory}/{program}", lists)
                    continue
                np = 2
                opts = []
                if len(fields) > 1:
                    np = int(fields[1])
                for field in fields[2:]:
                    if "=" in field:
                        k, v = field.split("=", 1)
                        opts.append((k, v))
                sub = directory
                if "/" in program:  # "subdir/program": runtests changes into subdir
                    head, program = program.rsplit("/", 1)
                    sub = f"{directory}/{head}"
                entries.append(Entry(sub, program, np, opts))
    return entries


def skip_reason(entry, mpi_version, mem_total_gb):
    if entry.value("strict", "").lower() == "false":
        return "strict=false (tests MPICH extensions)"
    need = entry.value("mpiversion")
    if need:
        try:
            if tuple(int(x) for x in need.split(".")) > mpi_version:
                return f"needs MPI {need}"
        except ValueError:
            pass
    mem = entry.value("mem")
    if mem:
        try:
            if float(mem) > mem_total_gb:
                return f"needs {mem} GB of memory"
        except ValueError:
            pass
    return None


# ---------------------------------------------------------------------------------------------
# Building


def mem_total_gb():
    with open("/proc/meminfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / (1024 * 1024)
    return 0.0


def mpi_version(tree):
    """MPI_VERSION.MPI_SUBVERSION the library's mpi.h declares, as configure found it."""
    try:
        with open(os.path.join(tree, "config.log"), encoding="utf-8", errors="replace") as f:
            text = f.read()
        m = re.search(r"^MPI_VERSION='?(\d+)'?", text, re.M)
        if m:
            return (int(m.group(1)), 99)
    except OSError:
        pass
    return (99, 99)


def build_reason(text):
    """A short reason from a failed compile: the MPI functions, types or constants it missed."""
    missing = []
    for pattern in (r"undefined reference to .(P?MPIX?_\w+)", r"implicit declaration of function .(P?MPIX?_\w+)",
                    r".(MPIX?_\w+). undeclared", r"unknown type name .(MPIX?_\w+)"):
        for name in re.findall(pattern, text):
            name = name[1:] if name.startswith("PMPI_") else name  # the profiling name: the same function
            if name not in missing:
                missing.append(name)
    if missing:
        return "missing " + ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
    m = re.search(r"error: (.*)", text)
    return f"build: {m.group(1).strip()[:80]}" if m else "build"


def build_dir(tree, directory, programs, jobs, logdir):
    """Builds the programs of one directory (make -k), then each missing one alone for its log.
    Returns {program: reason} for those that did not build."""
    path = os.path.join(tree, directory)
    os.makedirs(logdir, exist_ok=True)
    if not programs:  # (make without targets would build the directory's every program)
        return {}
    with open(os.path.join(logdir, "make.log"), "w", encoding="utf-8") as out:
        subprocess.run(["make", "-k", f"-j{jobs}", *programs], cwd=path, stdout=out,
                       stderr=subprocess.STDOUT, check=False)
    failed = {}
    for program in programs:
        if os.access(os.path.join(path, program), os.X_OK):
            continue
        proc = subprocess.run(["make", program], cwd=path, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, check=False, text=True, errors="replace")
        with open(os.path.join(logdir, f"{program}.build.log"), "w", encoding="utf-8") as out:
            out.write(proc.stdout)
        if not os.access(os.path.join(path, program), os.X_OK):
            failed[program] = build_reason(proc.stdout)
    return failed


# ---------------------------------------------------------------------------------------------
# Running


def session_pids(sid):
    """The live processes of a session (zombies, which no signal ends, left out)."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.getsid(int(name)) != sid:
                    continue
                with open(f"/proc/{name}/stat", encoding="utf-8") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                        pids.append(int(name))
            except (OSError, IndexError):
                pass
    return pids


def kill_session(proc):
    """Stops a run that exceeded its time: SIGTERM to the launcher's process group (so that the
    launcher can stop its ranks and clean up), then SIGKILL to everything left in its session."""
    sid = proc.pid
    try:
        os.killpg(sid, signal.SIGTERM)
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for _ in range(3):
        pids = session_pids(sid)
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.5)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def run_reason(text, rc, timed_out):
    """A short reason from a failed run: what the library said, else how it ended."""
    if timed_out or "time limit for job execution has been reached" in text:
        return "timeout"
    m = re.search(r"(MPI_\w+): not supported by this version", text)
    if m:
        return f"unsupported {m.group(1)}"
    if re.search(r"thread[ _]multiple", text, re.I):
        return "MPI_THREAD_MULTIPLE not provided"
    m = re.search(r"(MPI_\w+)[^\n]*(?:not implemented|not supported|unsupported)", text)
    if m:
        return f"unsupported {m.group(1)}"
    if rc < 0 or 128 < rc <= 128 + 64:  # killed by a signal (a shell reports 128 + its number)
        return f"signal {-rc if rc < 0 else rc - 128}"
    for line in text.splitlines():
        line = line.strip()
        if line and not NO_ERRORS.match(line):
            return f"wrong result: {line[:100]}"
    return f"exit {rc}" if rc else "no 'No Errors'"


def run_entry(entry, tree, launch, timeout, logpath):
    cwd = os.path.join(tree, entry.dir)
    limit = timeout
    tl = entry.value("timeLimit")
    if tl and tl.isdigit():
        limit = max(10.0, timeout * float(tl) / RUNTESTS_DEFAULT_LIMIT)
    env = dict(os.environ)
    env["MPIEXEC_TIMEOUT"] = str(int(limit))
    for kv in entry.values("env"):
        if "=" in kv:
            k, v = kv.split("=", 1)
            env[k] = v
    cmd = [a.replace("{np}", str(entry.np)) for a in launch] + [f"./{entry.program}"] + entry.values("arg")
    start = time.monotonic()
    timed_out = False
    with open(logpath, "w+b") as out:
        out.write(("# " + " ".join(cmd) + "\n").encode())
        out.flush()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_session(proc)
            rc = proc.returncode if proc.returncode is not None else -9
        # Ranks the launcher left behind (it exited, they did not) are stopped too.
        for pid in session_pids(proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        seconds = time.monotonic() - start
        out.seek(0)
        text = out.read().decode(errors="replace").split("\n", 1)[-1]
    result_test = entry.value("resultTest", "")
    if result_test in ("TestStatus", "TestErrFatal"):
        passed = rc != 0
    elif result_test == "TestStatusNoErrors":
        passed = rc != 0 and bool(NO_ERRORS.search(text)) and not timed_out
    else:
        passed = rc == 0 and not timed_out and bool(NO_ERRORS.search(text))
    reason = "" if passed else run_reason(text, rc, timed_out)
    return passed, rc, seconds, reason


def cmd_run(args):
    dirs = args.dirs.split(",")
    lists = args.lists.split(",")
    launch = args.launch.split()
    results = {}
    if os.path.isfile(args.results):
        with open(args.results, encoding="utf-8") as f:
            results = json.load(f).get("tests", {})
    version = mpi_version(args.tree)
    memory = mem_total_gb()
    for top in dirs:
        entries = read_entries(args.tree, args.srcdir, top, lists)
        if args.rerun_failed:
            # Only the entries that have no result or failed; the others keep theirs.
            entries = [e for e in entries if results.get(e.key, {}).get("result") not in ("passed", "skipped")]
        else:
            # Results of an earlier run of this directory are replaced as a whole.
            results = {k: v for k, v in results.items() if v["top"] != top}
        by_dir = {}
        for e in entries:
            by_dir.setdefault(e.dir, []).append(e)
        t0 = time.monotonic()
        build_failed = {}
        for d, es in by_dir.items():
            programs = sorted({e.program for e in es if not skip_reason(e, version, memory)})
            failed = build_dir(args.tree, d, programs, args.jobs, os.path.join(args.logs, d))
            build_failed.update({(d, p): r for p, r in failed.items()})
        log(f"{args.lib}: {top}: {len(entries)} entries, built in {time.monotonic() - t0:.0f} s"
            f" ({len(build_failed)} programs did not build)")
        npass = 0
        for e in entries:
            rec = {"test": e.name, "dir": e.dir, "top": top, "np": e.np, "seconds": 0.0, "rc": None}
            skip = skip_reason(e, version, memory)
            if skip:
                rec.update(result="skipped", reason=skip)
            elif (e.dir, e.program) in build_failed:
                rec.update(result="failed", reason=build_failed[(e.dir, e.program)])
                print(f"  {args.lib}: {e.key}: failed {rec['reason']}", flush=True)
            else:
                logdir = os.path.join(args.logs, e.dir)
                os.makedirs(logdir, exist_ok=True)
                safe = re.sub(r"[^A-Za-z0-9_.=,-]", "_", e.name.split("/")[-1])
                passed, rc, seconds, reason = run_entry(e, args.tree, launch, args.timeout,
                                                        os.path.join(logdir, f"{safe}.np{e.np}.log"))
                rec.update(result="passed" if passed else "failed", reason=reason, rc=rc,
                           seconds=round(seconds, 2))
                npass += passed
                if args.verbose or not passed:
                    print(f"  {args.lib}: {e.key}: {rec['result']} {rec['reason']} ({seconds:.1f} s)",
                          flush=True)
            results[e.key] = rec
        log(f"{args.lib}: {top}: {npass} passed, {time.monotonic() - t0:.0f} s in all")
        with open(args.results + ".tmp", "w", encoding="utf-8") as f:
            json.dump({"lib": args.lib, "timeout": args.timeout, "lists": lists, "tests": results}, f,
                      indent=1, sort_keys=True)
        os.replace(args.results + ".tmp", args.results)
    return 0


# ---------------------------------------------------------------------------------------------
# Report and expected-failure list

LIST_HEADER = """\
# Tests of MPICH's test suite (test/mpi of Debian 12's mpich source package) that Open MPI passes
# and libtakyon_mpi does not, one a line: <dir/test[,arg=...,env=...]> <np> <reason>.
# ci/mpich-testsuite.sh fails when another test that Open MPI passes fails under Takyon, and
# names the tests listed here that pass now. Rewrite it from a run with
#   bash ci/mpich-testsuite.sh --update-list
# (reasons of tests still failing are kept; new ones get the reason the run found: edit them).
"""


def read_expected(path):
    expected = {}
    if not os.path.isfile(path):
        return expected
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split(None, 2)
            if len(fields) < 2:
                continue
            expected[f"{fields[0]} {fields[1]}"] = fields[2] if len(fields) > 2 else ""
    return expected


def load_results(path):
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f).get("tests", {})


def cmd_report(args):
    dirs = args.dirs.split(",")
    ompi = load_results(os.path.join(args.results_dir, "results-ompi.json"))
    tak = load_results(os.path.join(args.results_dir, "results-takyon.json"))
    keys = sorted({k for k, v in {**ompi, **tak}.items() if v["top"] in dirs},
                  key=lambda k: (dirs.index((ompi.get(k) or tak.get(k))["top"]), k))

    rows = []
    for k in keys:
        o, t = ompi.get(k, {}), tak.get(k, {})
        base = o or t
        rows.append({
            "key": k, "test": base["test"], "dir": base["dir"], "top": base["top"], "np": base["np"],
            "ompi": o.get("result", "not run"), "ompi_seconds": o.get("seconds", ""),
            "ompi_reason": o.get("reason", ""),
            "takyon": t.get("result", "not run"), "takyon_seconds": t.get("seconds", ""),
            "takyon_reason": t.get("reason", ""),
        })
    with open(os.path.join(args.results_dir, "results.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=[c for c in rows[0] if c != "key"] if rows else ["test"],
                           extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(args.results_dir, "results.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1)

    # The table: per directory (threads/* counted under threads).
    print()
    print(f"{'directory':<10} {'listed':>6} {'skipped':>7} {'Open MPI':>8} {'Takyon':>6} "
          f"{'only Open MPI':>13} {'only Takyon':>11}")
    totals = [0] * 6
    for top in dirs:
        mine = [r for r in rows if r["top"] == top]
        listed = len(mine)
        skipped = sum(1 for r in mine if r["ompi"] == "skipped" or r["takyon"] == "skipped")
        po = sum(1 for r in mine if r["ompi"] == "passed")
        pt = sum(1 for r in mine if r["takyon"] == "passed")
        oo = sum(1 for r in mine if r["ompi"] == "passed" and r["takyon"] != "passed")
        ot = sum(1 for r in mine if r["takyon"] == "passed" and r["ompi"] != "passed")
        for i, v in enumerate((listed, skipped, po, pt, oo, ot)):
            totals[i] += v
        print(f"{top:<10} {listed:>6} {skipped:>7} {po:>8} {pt:>6} {oo:>13} {ot:>11}")
    print(f"{'total':<10} {totals[0]:>6} {totals[1]:>7} {totals[2]:>8} {totals[3]:>6} {totals[4]:>13} "
          f"{totals[5]:>11}")
    print()

    expected = read_expected(args.expected)
    in_scope = {r["key"] for r in rows}
    regressions = [r for r in rows if r["ompi"] == "passed" and r["takyon"] == "failed"
                   and r["key"] not in expected]
    now_pass = [k for k in expected if k in in_scope and
                next(r for r in rows if r["key"] == k)["takyon"] == "passed"]
    not_run = [r for r in rows if r["ompi"] == "not run" or r["takyon"] == "not run"]
    if not_run:
        print(f"{len(not_run)} tests have no result for one of the libraries (run both sides for "
              f"these directories), e.g. {not_run[0]['key']}")
    for k in now_pass:
        print(f"now passes under Takyon (remove it from {args.expected_display}): {k}")
    for r in regressions:
        print(f"REGRESSION: {r['key']}: passes under Open MPI, fails under Takyon: {r['takyon_reason']}")

    if args.update_list:
        write_list(args.expected, expected, rows, dirs)
        print(f"rewrote {args.expected_display}")
        return 0
    status = 0
    if regressions:
        print(f"{len(regressions)} tests that Open MPI passes fail under Takyon and are not in "
              f"{args.expected_display}")
        status = 1
    if now_pass and args.strict_list:
        print(f"{len(now_pass)} tests of {args.expected_display} pass now (--strict-list)")
        status = 1
    if not_run and args.strict_list:
        status = 1
    print("result: " + ("PASSED" if status == 0 else "FAILED"))
    return status


def write_list(path, expected, rows, dirs):
    """Rewrites the list: entries of the directories not run are kept; for those run, every test
    that Open MPI passes and Takyon does not, with the reason it had (or the run's)."""
    lines = {}
    run_keys = {r["key"] for r in rows}
    for k, reason in expected.items():
        if k not in run_keys and k.split("/", 1)[0] not in dirs:
            lines[k] = reason
    for r in rows:
        if r["ompi"] == "passed" and r["takyon"] == "failed":
            lines[r["key"]] = expected.get(r["key"]) or r["takyon_reason"] or "unknown"
    with open(path, "w", encoding="utf-8") as f:
        f.write(LIST_HEADER)
        for k in sorted(lines):
            f.write(f"{k} {lines[k]}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--lib", required=True)
    r.add_argument("--tree", required=True, help="the configured build tree of test/mpi")
    r.add_argument("--srcdir", required=True, help="test/mpi of the source package")
    r.add_argument("--dirs", required=True)
    r.add_argument("--lists", default="testlist")
    r.add_argument("--launch", required=True, help="launcher command, {np} for the rank count")
    r.add_argument("--timeout", type=float, default=60.0)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--results", required=True)
    r.add_argument("--logs", required=True)
    r.add_argument("--rerun-failed", action="store_true",
                   help="run only the entries that failed (or have no result) in --results")
    r.add_argument("--verbose", action="store_true")
    q = sub.add_parser("report")
    q.add_argument("--results-dir", required=True)
    q.add_argument("--dirs", required=True)
    q.add_argument("--expected", required=True)
    q.add_argument("--expected-display", default="the expected-failure list")
    q.add_argument("--update-list", action="store_true")
    q.add_argument("--strict-list", action="store_true",
                   help="also fail when a listed test passes or a test has no result")
    args = p.parse_args()
    return cmd_run(args) if args.cmd == "run" else cmd_report(args)


if __name__ == "__main__":
    sys.exit(main())
