#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ctest mpich.runner: tests/mpich/run_suite.py on a made-up suite of shell-script "programs"
(built by make, run by a fake launcher), so that its pass rule, testlist keys, timeouts, build
failures and expected-failure list are checked without the real suite or an MPI library."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_suite.py")

PROGRAMS = {
    "pass": 'echo " No Errors"',
    # np from the launcher, arguments and environment from the testlist
    "args": '[ "$NP" = 3 ] && [ "$1" = -x=1 ] && [ "$2" = -y ] && [ "$FOO" = bar ] || '
            '{ echo "got NP=$NP $* FOO=$FOO"; exit 0; }; echo " No Errors"',
    "silent": "exit 0",
    "exit1": 'echo " No Errors"; exit 1',
    "wrong": 'echo "Found 3 errors"',
    # a rank that never ends, with a child of its own that must not survive the timeout
    "hang": 'sleep 300 & echo $! > "$PIDFILE"; wait',
    "status": "exit 3",
    "unsupported": 'echo "MPI_Foo_bar: not supported by this version of libtakyon_mpi"; exit 15',
    "ext": 'echo " No Errors"',
    "segv": "kill -SEGV $$",
    "abort": 'echo "rank 0 called MPI_Abort"; exit 255',
}
TESTLIST = """\
# comment
pass 2
args 3 arg=-x=1 arg=-y env=FOO=bar
silent 1
exit1 1
wrong 2
hang 1
status 1 resultTest=TestStatus
unsupported 2
segv 1
abort 1
ext 1 strict=false
broken 1
sub
"""


def check(cond, what):
    if not cond:
        print(f"FAILED: {what}")
        sys.exit(1)
    print(f"ok: {what}")


def alive(pid):
    """Whether the process runs (a zombie waiting for its parent to reap it does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    print(f"process {pid} state {state}")
    return state != "Z"


def make_tree(root):
    t = os.path.join(root, "tree", "t")
    os.makedirs(os.path.join(t, "sub"))
    rules = ["%: %.sh\n\tcp $< $@ && chmod +x $@\n",
             "broken:\n\t@echo \"broken.c:3:5: error: implicit declaration of function 'MPI_Foo'\"; exit 1\n"]
    for d, progs in ((t, PROGRAMS), (os.path.join(t, "sub"), {"inner": 'echo " No Errors"'})):
        with open(os.path.join(d, "Makefile"), "w", encoding="utf-8") as f:
            f.write("".join(rules))
        for name, body in progs.items():
            with open(os.path.join(d, f"{name}.sh"), "w", encoding="utf-8") as f:
                f.write(f"#!/bin/sh\n{body}\n")
    with open(os.path.join(t, "testlist"), "w", encoding="utf-8") as f:
        f.write(TESTLIST)
    with open(os.path.join(t, "sub", "testlist"), "w", encoding="utf-8") as f:
        f.write("inner 4\n")
    launcher = os.path.join(root, "launch.sh")
    with open(launcher, "w", encoding="utf-8") as f:
        f.write('#!/bin/sh\nNP=$1; shift; export NP; exec "$@"\n')
    os.chmod(launcher, 0o755)
    return launcher


def run(*args, expect=None):
    proc = subprocess.run([sys.executable, RUNNER, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=False)
    print(proc.stdout)
    if expect is not None:
        check(proc.returncode == expect, f"{args[0]} exits {expect}")
    return proc


def main():
    with tempfile.TemporaryDirectory() as root:
        launcher = make_tree(root)
        pidfile = os.path.join(root, "hang.pid")
        os.environ["PIDFILE"] = pidfile
        tree = os.path.join(root, "tree")
        t0 = time.monotonic()
        run("run", "--lib", "takyon", "--tree", tree, "--srcdir", tree, "--dirs", "t", "--timeout", "2",
            "--launch", f"{launcher} {{np}}", "--results", os.path.join(root, "results-takyon.json"),
            "--logs", os.path.join(root, "logs"), expect=0)
        check(time.monotonic() - t0 < 60, "the hanging test is stopped at its timeout")
        with open(os.path.join(root, "results-takyon.json"), encoding="utf-8") as f:
            res = json.load(f)["tests"]
        want = {
            "t/pass 2": ("passed", ""),
            "t/args,arg=-x=1,arg=-y,env=FOO=bar 3": ("passed", ""),
            "t/silent 1": ("failed", "no 'No Errors'"),
            "t/exit1 1": ("failed", "exit 1"),
            "t/wrong 2": ("failed", "wrong result: Found 3 errors"),
            "t/hang 1": ("failed", "timeout"),
            "t/status 1": ("passed", ""),
            "t/unsupported 2": ("failed", "unsupported MPI_Foo_bar"),
            "t/ext 1": ("skipped", "strict=false"),
            "t/segv 1": ("failed", "signal 11"),
            "t/abort 1": ("failed", "wrong result: rank 0 called MPI_Abort"),
            "t/broken 1": ("failed", "missing MPI_Foo"),
            "t/sub/inner 4": ("passed", ""),
        }
        check(sorted(res) == sorted(want), f"every entry has a result: {sorted(res)}")
        for key, (result, reason) in want.items():
            check(res[key]["result"] == result and reason in res[key]["reason"],
                  f"{key}: {result} '{reason}' (got {res[key]['result']} '{res[key]['reason']}')")
        with open(pidfile, encoding="utf-8") as f:
            child = int(f.read())
        check(not alive(child), "the timed-out test's child process is gone")

        # Open MPI's side, made up: it passes everything but 'wrong'.
        ompi = {k: dict(v, result="passed", reason="") for k, v in res.items()}
        ompi["t/wrong 2"].update(result="failed", reason="wrong result")
        ompi["t/ext 1"].update(result="skipped", reason="strict=false")
        with open(os.path.join(root, "results-ompi.json"), "w", encoding="utf-8") as f:
            json.dump({"lib": "ompi", "tests": ompi}, f)
        listfile = os.path.join(root, "expected.txt")
        with open(listfile, "w", encoding="utf-8") as f:
            f.write("# header\nt/exit1 1 my reason\nt/pass 2 was broken\n")
        report = ["report", "--results-dir", root, "--dirs", "t", "--expected", listfile]
        out = run(*report, expect=1).stdout
        for key in ("t/silent 1", "t/hang 1", "t/unsupported 2", "t/broken 1", "t/segv 1", "t/abort 1"):
            check(f"REGRESSION: {key}:" in out, f"{key} is a regression")
        check("REGRESSION: t/exit1 1" not in out and "REGRESSION: t/wrong 2" not in out,
              "listed tests and tests Open MPI fails are not regressions")
        check("now passes under Takyon" in out and "t/pass 2" in out, "a listed test that passes is named")
        check(any(line.split()[:7] == ["t", "13", "1", "11", "4", "7", "0"] for line in out.splitlines()),
              "the table: listed, skipped, Open MPI, Takyon, only Open MPI, only Takyon")
        run(*report, "--update-list", expect=0)
        with open(listfile, encoding="utf-8") as f:
            lines = [line.split(None, 2) for line in f if line.strip() and not line.startswith("#")]
        listed = {f"{a} {b}": c.strip() for a, b, c in lines}
        check(sorted(listed) == ["t/abort 1", "t/broken 1", "t/exit1 1", "t/hang 1", "t/segv 1", "t/silent 1",
                                 "t/unsupported 2"],
              f"--update-list lists what Open MPI passes and Takyon does not: {sorted(listed)}")
        check(listed["t/exit1 1"] == "my reason" and listed["t/hang 1"] == "timeout",
              "--update-list keeps the reasons it had and gives new entries the run's")
        run(*report, expect=0)
        run(*report, "--strict-list", expect=0)
        with open(listfile, "a", encoding="utf-8") as f:
            f.write("t/pass 2 was broken\n")
        run(*report, "--strict-list", expect=1)
        with open(os.path.join(root, "results.csv"), encoding="utf-8") as f:
            check(len(f.read().splitlines()) == 14, "results.csv has a row per test")
    print("mpich.runner: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
