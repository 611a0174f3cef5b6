# SPDX-License-Identifier: MIT
"""Small helpers shared by the report's modules: sizes, logging, jobs, statistics, the machine."""
import datetime
import os
import platform
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_size(text):
    """"8" -> 8, "4K" -> 4096, "1M"/"1MiB" -> 1048576."""
    t = text.strip().upper()
    for suffix in ("IB", "B"):
        if t.endswith(suffix) and len(t) > len(suffix):
            t = t[: -len(suffix)]
            break
    mult = 1
    if t.endswith("K"):
        mult, t = 1 << 10, t[:-1]
    elif t.endswith("M"):
        mult, t = 1 << 20, t[:-1]
    return int(t) * mult


def parse_range(text, what):
    """"MIN:MAX" (or "MAX") -> (min, max); raises ValueError naming `what`."""
    try:
        lo, hi = text.split(":", 1) if ":" in text else ("0", text)
        lo, hi = parse_size(lo), parse_size(hi)
    except ValueError:
        raise ValueError(f"{what} takes MIN:MAX (e.g. 0:4M), not '{text}'") from None
    if lo > hi:
        raise ValueError(f"{what}: MIN {lo} is larger than MAX {hi}")
    return lo, hi


def human_size(n):
    """8 -> "8 B", 1024 -> "1 KiB", 1 << 20 -> "1 MiB"."""
    for shift, suffix in ((20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {suffix}"
    return f"{n} B"


def run_job(cmd, timeout, cwd=None):
    """Runs a command in its own process group; on timeout or interruption the whole group (a
    launcher and its ranks) is terminated, so nothing is left spinning. Returns CompletedProcess;
    raises subprocess.TimeoutExpired or OSError."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, cwd=cwd)
    try:
        out, err = proc.communicate(timeout=timeout)
    except BaseException:  # TimeoutExpired, KeyboardInterrupt, SystemExit (SIGTERM)
        for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 10)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                pass
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


NOISE = ("orte_base_help_aggregate", "has sent help message", "see all help / error messages")


def tail(text, lines=3):
    """The last lines of a failed run's output that say something (not Open MPI's help-aggregation
    chatter or separator lines)."""
    keep = [ln.strip() for ln in (text or "").splitlines()
            if ln.strip() and not set(ln.strip()) <= set("-*= ") and not any(n in ln for n in NOISE)]
    if len(keep) <= lines:
        return " | ".join(keep) or "(no output)"
    # Open MPI's help blocks: the first sentence and their "Key: value" lines say the most.
    facts = [ln for ln in keep[1:-1] if re.match(r"^[A-Z][\w ]{0,20}:\s+\S", ln)][:3]
    return " | ".join([keep[0]] + facts + ["...", keep[-1]])


def summarize(values, noise):
    """Median over repetitions with its spread: (max - min) / median; noisy above `noise`."""
    med = statistics.median(values)
    spread = (max(values) - min(values)) / med if med > 0 else 0.0
    return {"median": med, "min": min(values), "max": max(values), "spread": spread,
            "noisy": len(values) > 1 and spread > noise, "reps": len(values), "values": values}


def first_line(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        out = (r.stdout or r.stderr).strip().splitlines()
        return out[0].strip() if out else f"(no output from {' '.join(cmd)})"
    except (OSError, subprocess.SubprocessError) as e:
        return f"unavailable: {e}"


def ucx_version():
    """'UCX 1.13.1' from ucx_info -v (whose first line is '# Version 1.13.1' or '# UCT version=...')."""
    if not shutil.which("ucx_info"):
        return "ucx_info not found"
    line = first_line(["ucx_info", "-v"])
    m = re.search(r"[Vv]ersion[ =:]*([0-9][0-9.]*)", line)
    return f"UCX {m.group(1)}" if m else line.lstrip("# ")


def machine_info(mpirun, argv):
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_gib = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem_gib = round(int(line.split()[1]) / (1 << 20), 1)
    except OSError:
        pass
    try:
        import matplotlib
        mpl = matplotlib.__version__
    except ImportError:
        mpl = None
    return {
        "cpu_model": model,
        "cores": os.cpu_count(),
        "cores_allowed": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "memory_gib": mem_gib,
        "hostname": socket.gethostname(),
        "kernel": platform.release(),
        "os": first_line(["sh", "-c", ". /etc/os-release && echo \"$PRETTY_NAME\""]),
        "open_mpi": first_line([mpirun, "--version"]) if shutil.which(mpirun) else f"not found: {mpirun}",
        "ucx": ucx_version(),
        "compiler": first_line(["cc", "--version"]),
        "python": platform.python_version(),
        "matplotlib": mpl,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "loadavg_start": list(os.getloadavg()),
        "command_line": shlex.join(argv),
    }


def cpu_probe(takyon_bench):
    """takyon-bench --cpu-probe: the one-way ns of a cache-line ping-pong between the two CPUs the
    benchmarks start on, measured now (a short run). On a VM it moves as the host places the vCPUs
    (several times larger with them far apart than close), and every shared-memory latency moves
    with it. None where it cannot run."""
    if not takyon_bench or not os.access(takyon_bench, os.X_OK):
        return None
    try:
        r = subprocess.run([takyon_bench, "--cpu-probe"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.match(r"cpu-probe: ([0-9.]+) ns", r.stdout)
    return float(m.group(1)) if m else None


def placement_note(h):
    """Where the CPU probes taken before the runs behind a headline differ by 1.5x or more: the vCPUs
    moved during the run, and the repetitions of each side may have been measured apart."""
    p = h.get("probe_ns")
    if not p or p[0] <= 0 or p[1] < 1.5 * p[0]:
        return ""
    return f" [CPUs moved during the run: cache-line one-way {p[0]:.0f}-{p[1]:.0f} ns]"


def switches_note(h):
    """Where ranks took turns on cores (a switch or more per iteration): both sides' context switches."""
    if h.get("switches") is None or max(h["switches"], h["reference_switches"]) < 1:
        return ""
    return f" [context switches per iteration {h['switches']:.1f} vs {h['reference_switches']:.1f}]"
