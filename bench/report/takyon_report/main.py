# SPDX-License-Identifier: MIT
"""takyon-report: one command, one report. Runs, interleaved, the path API over every provider
(takyon-bench, with ucx_perftest over the Ucx providers' transports), the MPI benchmark programs
(bench/mpi: mpi_p2p, mpi_coll) built against libtakyon_mpi under takyon-run and built with Open
MPI's mpicc under mpirun in its default and best local configurations, and writes one HTML report
with plots, the raw CSV/JSON and the machine description to --out-dir."""
import argparse
import csv
import io
import json
import os
import re
import shlex
import shutil
import sys
import time

from . import compare as compare_mod
from . import html_report as html_mod
from . import records as records_mod
from . import schema as schema_mod
from .units import MPI_COMPONENTS, P2P_TESTS, RMA_COMPONENTS, make_units
from .util import human_size, log, machine_info, parse_range, placement_note, switches_note

SCHEMA = "takyon-report/1"


def parse_args(argv, here):
    p = argparse.ArgumentParser(prog="takyon-report", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--full", action="store_true",
                   help="complete sweeps (p2p 0..4 MiB, full iterations, 5 repetitions, "
                        "takyon-bench without --quick, polling and event, every collective); default: the quick "
                        "report")
    p.add_argument("--reps", type=int, help="repetitions of every component (default 3, --full 5)")
    p.add_argument("--out-dir", default="results", help="where the report goes (default results/)")
    p.add_argument("--p2p-sizes", help="MIN:MAX for mpi_p2p (default 0:4M)")
    p.add_argument("--coll-sizes", help="MIN:MAX bytes per rank for mpi_coll (default 1:4M; the quick report "
                                        "stops at 1M where ranks outnumber cores)")
    p.add_argument("--path-sizes", help="MIN:MAX for takyon-bench (default 0:4M)")
    p.add_argument("--np", default="2,4",
                   help="rank counts of mpi_coll and of mpi_p2p's msgrate (default 2,4; more ranks than cores "
                        "run oversubscribed); mpi_p2p's other tests always use 2 ranks")
    p.add_argument("--p2p-tests", default=",".join(P2P_TESTS), help=f"subset of {','.join(P2P_TESTS)}")
    p.add_argument("--coll-tests", help="mpi_coll --tests: collectives by name, or 'all' (default: mpi_coll's "
                                        "default set, the blocking ones; --full: all)")
    p.add_argument("--suites", default="mpi_p2p,mpi_coll,mpi_rma",
                   help="MPI suites: mpi_p2p,mpi_coll,mpi_rma (default all three; mpi_rma, the one-sided "
                        "patterns, runs under its own Open MPI configurations, see --rma-configs)")
    p.add_argument("--rma-configs", default=",".join(c[0] for c in RMA_COMPONENTS),
                   help="mpi_rma components (default all): " + ", ".join(c[0] for c in RMA_COMPONENTS))
    p.add_argument("--rma-sizes", help="MIN:MAX for mpi_rma's swept tests (default 8:4M)")
    p.add_argument("--rma-scale", type=float, help="iteration scale for mpi_rma (default 0.1, --full 1)")
    p.add_argument("--configs", default=",".join(c[0] for c in MPI_COMPONENTS),
                   help="MPI components (default all): " + ", ".join(c[0] for c in MPI_COMPONENTS))
    p.add_argument("--ompi-config", action="append", default=[], metavar="NAME=MPIRUN-ARGS",
                   help="add an Open MPI configuration of your own, e.g. 'tcp=--mca pml ob1 --mca btl self,tcp' "
                        "(repeatable; its name must start with ompi- or is given that prefix)")
    p.add_argument("--providers", default="all", help="takyon-bench --provider (default all)")
    p.add_argument("--path-mode", help="takyon-bench --mode (default polling, --full both)")
    p.add_argument("--no-path", action="store_true", help="leave out takyon-bench (the path API)")
    p.add_argument("--no-ucx-perftest", dest="ucx_perftest", action="store_false",
                   help="no ucx_perftest beside the Ucx providers")
    p.add_argument("--p2p-scale", type=float, help="iteration scale for mpi_p2p (default 0.1, --full 1)")
    p.add_argument("--coll-scale", type=float, help="iteration scale for mpi_coll (default 0.1, --full 1)")
    p.add_argument("--noise", type=float, default=0.10,
                   help="flag a figure whose (max-min)/median over repetitions exceeds this (default 0.10)")
    p.add_argument("--timeout", type=float, help="seconds per run before it counts as failed (default 120, --full 600)")
    p.add_argument("--compare", metavar="OLD.json", help="add a regression table against an earlier takyon-report.json")
    p.add_argument("--regression-threshold", type=float, default=0.10,
                   help="--compare: a change worse than this (and than the spreads) is a regression (default 0.10)")
    p.add_argument("--mpirun", default="mpirun", help="Open MPI's mpirun (default: on PATH)")
    p.add_argument("--takyon-run", default=_find(here, ["takyon-run"]), help="takyon-run (default: next to this)")
    p.add_argument("--takyon-bench", default=_find(here, ["takyon-bench", "../bench/takyon-bench"]),
                   help="takyon-bench (default: next to this, or ../bench/ in a build tree)")
    p.add_argument("--prog-dir", default=os.environ.get(
        "TAKYON_BENCH_MPI_PROG_DIR", os.path.join(here, "..", "libexec", "takyon", "bench-mpi")),
        help="folder with takyon/ and ompi/ builds of mpi_p2p and mpi_coll")
    p.add_argument("--validate-json", metavar="FILE", help="only validate FILE against the report's schema and exit")
    p.add_argument("--fail-on-error", action="store_true", help="exit 1 if any component failed")
    a = p.parse_args(argv)
    if a.validate_json:
        return a
    a.quick = not a.full
    a.reps = a.reps or (5 if a.full else 3)
    a.timeout = a.timeout or (600.0 if a.full else 120.0)
    a.p2p_scale = a.p2p_scale or (1.0 if a.full else 0.1)
    a.coll_scale = a.coll_scale or (1.0 if a.full else 0.1)
    a.rma_scale = a.rma_scale or (1.0 if a.full else 0.1)
    a.path_mode = a.path_mode or ("both" if a.full else "polling")
    try:
        a.np = sorted({int(n) for n in a.np.split(",") if n})
    except ValueError:
        p.error(f"--np takes rank counts such as 2,4, not '{a.np}'")
    try:
        a.p2p_sizes = parse_range(a.p2p_sizes or "0:4M", "--p2p-sizes")
        # The quick report's oversubscribed collectives stop at 1 MiB: there each size costs several times
        # more (ranks take turns on the cores); --full or an explicit --coll-sizes sweeps all.
        a.oversubscribed_coll_max = 1 << 20 if a.quick and not a.coll_sizes else None
        a.coll_sizes = parse_range(a.coll_sizes or "1:4M", "--coll-sizes")
        a.path_sizes = parse_range(a.path_sizes or "0:4M", "--path-sizes")
        a.rma_sizes = parse_range(a.rma_sizes or "8:4M", "--rma-sizes")
    except ValueError as e:
        p.error(str(e))
    a.p2p_tests = _list(p, a.p2p_tests, P2P_TESTS, "--p2p-tests")
    # Collectives are mpi_coll's to name (it rejects an unknown one, and the unit fails saying so).
    a.coll_tests = [t for t in (a.coll_tests or ("all" if a.full else "")).split(",") if t] or None
    a.suites = _list(p, a.suites, ("mpi_p2p", "mpi_coll", "mpi_rma"), "--suites", allow_empty=True)
    a.rma_configs = _list(p, a.rma_configs, tuple(c[0] for c in RMA_COMPONENTS), "--rma-configs", allow_empty=True)
    comps = {c[0]: c for c in MPI_COMPONENTS}
    a.mpi_components = [comps[c] for c in _list(p, a.configs, tuple(comps), "--configs", allow_empty=True)]
    for spec in a.ompi_config:
        name, eq, rest = spec.partition("=")
        if not eq or not name:
            p.error(f"--ompi-config takes NAME=MPIRUN-ARGS, not '{spec}'")
        name = name if name.startswith("ompi-") else "ompi-" + name
        a.mpi_components.append((name, "ompi", f"Open MPI: {rest.strip()}", rest.split()))
    if a.reps < 1 or not a.np or min(a.np) < 2:
        p.error("--reps must be >= 1 and every --np >= 2")
    return a


def _find(here, names):
    for n in names:
        path = os.path.normpath(os.path.join(here, n))
        if os.access(path, os.X_OK):
            return path
    return shutil.which(os.path.basename(names[0])) or os.path.normpath(os.path.join(here, names[0]))


def _list(p, text, known, opt, allow_empty=False):
    items = [t for t in text.split(",") if t]
    for t in items:
        if t not in known:
            p.error(f"{opt}: unknown '{t}' (known: {', '.join(known)})")
    if not items and not allow_empty:
        p.error(f"{opt} is empty")
    return items


def run_all(units, args, runs_dir):
    """Interleaved: every repetition runs each unit once, in an order rotated per repetition, so
    machine drift hits every component alike. Progress and time left on stderr."""
    runnable = [u for u in units if not u.reason]
    total = len(runnable) * args.reps
    done, t_start = 0, time.perf_counter()
    for rep in range(args.reps):
        k = rep % len(runnable) if runnable else 0
        for unit in runnable[k:] + runnable[:k]:
            log(f"[{done + 1:>3}/{total}] rep {rep + 1}/{args.reps} {unit.name:<28} ...")
            ok, dt, reason = unit.run(rep, runs_dir, args.timeout)
            done += 1
            # Time left: each remaining run costs its unit's mean so far (or the overall mean).
            mean_all = (time.perf_counter() - t_start) / done
            left = sum((sum(u.seconds) / len(u.seconds) if u.seconds else mean_all) * (args.reps - len(u.seconds))
                       for u in runnable)
            log(f"      {'ok' if ok else 'FAILED: ' + reason} in {dt:.1f} s; "
                f"{100 * done // total}% done, ~{left:.0f} s left")


def write_csv(path, records):
    fields = ["suite", "component", "np", "test", "bytes", "unit", "median", "min", "max", "spread", "noisy", "reps",
              "avg_us", "min_us", "p50_us", "p99_us", "max_us", "ratio_to_best_ompi", "best_ompi", "validated",
              "switches_per_iter", "probe_ns"]
    with open(path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        wr.writeheader()
        for r in records:
            probes = r.get("probe_ns")
            wr.writerow({**r, "probe_ns": " ".join(f"{p:g}" for p in probes) if probes else ""})


def summary_text(doc, cmp):
    out = io.StringIO()
    m = doc["machine"]
    print(f"takyon-report: {m['cpu_model']}, {m['cores']} cores; {m['open_mpi']}; {m['ucx']}; {m['date']}", file=out)

    print(f"verdict: takyon / Open MPI's best configuration in this run, p50 figures, median of "
          f"{doc['config']['reps']} runs; win = the goal is met; ? = uncertain (the goal lies within the ratio's "
          f"range over the runs); ~ = noisy (spread over {doc['config']['noise_threshold']:.0%}); - = not measured",
          file=out)
    c = records_mod.verdict_counts(doc["verdict"])
    print(f"  {c['win']} win, {c['loss']} loss; {c['uncertain']} of them uncertain, {c['noisy']} noisy; "
          f"{c['not measured']} not measured" + records_mod.probe_text(doc["verdict"]), file=out)
    for np, patterns in records_mod.verdict_grid(doc["verdict"]):
        print(f"\n  {np} ranks{' (more than cores: oversubscribed)' if np > (doc['machine']['cores'] or 1) else ''}",
              file=out)
        print(f"  {'pattern':<34} {'goal':<29}" + "".join(f"{human_size(b):>13}" for b in records_mod.VERDICT_SIZES),
              file=out)
        for label, goal_text, cells in patterns:
            print(f"  {label:<34} {goal_text:<29}" + "".join(f"{records_mod.verdict_cell_text(r):>13}" for r in cells),
                  file=out)
    why = [r for r in doc["verdict"] if r["status"] == "failed"]
    for r in why:
        print(f"  FAILED {r['pattern']} np {r['np']}: {r.get('reason', '')}"[:240], file=out)
    if doc["headlines"]:
        print("\npath API (takyon / reference; ! = noisy)", file=out)
    for h in (h for h in doc["headlines"] if h.get("ratio") is not None):
        print(f"  {h['what']:<62} {h['ratio']:6.2f}x{'!' if h.get('noisy') else ' '} "
              f"({h['value']:.4g} vs {h['reference']:.4g} {h['unit']}, {h['against']}; {h['better']} is better)"
              + switches_note(h) + placement_note(h), file=out)
    print("\ncomponents", file=out)
    for u in doc["units"]:
        why = f": {u['reason']}" if u["reason"] else ""
        print(f"  {u['status']:<8} {u['name']:<28} {u['runs_ok']}/{u['runs_ok'] + u['runs_failed']} runs{why}"[:240],
              file=out)
    if cmp:
        compare_mod.print_compare(cmp, out)
    return out.getvalue()


def main(argv, here):
    args = parse_args(argv, here)
    if args.validate_json:
        try:
            with open(args.validate_json) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"takyon-report: {args.validate_json}: cannot read JSON: {e}", file=sys.stderr)
            return 1
        errors = schema_mod.validate(doc)
        for e in errors:
            print(f"takyon-report: {args.validate_json}: {e}", file=sys.stderr)
        print(f"{args.validate_json}: {'valid' if not errors else f'{len(errors)} errors'} ({SCHEMA})")
        return 1 if errors else 0
    old = None
    if args.compare:
        try:
            with open(args.compare) as f:
                old = json.load(f)
        except (OSError, ValueError) as e:
            print(f"takyon-report: --compare {args.compare}: {e}", file=sys.stderr)
            return 2
    out_dir = os.path.abspath(args.out_dir)
    runs_dir, plots_dir = os.path.join(out_dir, "runs"), os.path.join(out_dir, "plots")
    for d in (runs_dir, plots_dir):
        os.makedirs(d, exist_ok=True)
    # A report never mixes in an earlier one's plots or raw runs.
    for d, pattern in ((plots_dir, r".*\.png$"), (runs_dir, r".*\.rep[0-9]+\.(txt|csv|json)$")):
        for f in os.listdir(d):
            if re.match(pattern, f):
                os.remove(os.path.join(d, f))
    t0 = time.perf_counter()
    machine = machine_info(args.mpirun, ["takyon-report"] + argv)
    units = make_units(args)
    log(f"takyon-report: {'full' if args.full else 'quick'} report, {args.reps} repetitions, into {out_dir}")
    for u in units:
        log(f"  {u.name:<28} {'FAILED: ' + u.reason if u.reason else ' '.join(u.command())}")
    run_all(units, args, runs_dir)

    log("takyon-report: aggregating, plotting")
    records = records_mod.aggregate(units, args.noise)
    verdict = records_mod.verdict(records, units, args)
    heads = records_mod.headlines(records, units, args)
    from . import plots as plots_mod  # matplotlib only now: the runs above do not need it
    plots = plots_mod.plot_all(records, units, args.mpi_components, plots_dir)
    path_unit = next((u for u in units if u.suite == "path"), None)
    machine.update({
        "takyon_version": path_unit.info.get("git_describe") if path_unit else None,
        "takyon_build_type": path_unit.info.get("build_type") if path_unit else None,
        "ucx_perftest": path_unit.info.get("ucx_perftest") if path_unit else None,
        "mpi_libraries": sorted({u.info["library"] for u in units if u.info.get("library")}),
        "mpi_compilers": sorted({u.info["compiler"] for u in units if u.info.get("compiler")}),
        "loadavg_end": list(os.getloadavg()),
        "elapsed_s": round(time.perf_counter() - t0, 1),
    })
    doc = {
        "schema": SCHEMA,
        "machine": machine,
        "config": {"quick": args.quick, "reps": args.reps, "noise_threshold": args.noise, "suites": args.suites,
                   "p2p_sizes": list(args.p2p_sizes), "coll_sizes": list(args.coll_sizes),
                   "path_sizes": list(args.path_sizes), "rma_sizes": list(args.rma_sizes), "np": args.np,
                   "oversubscribed_coll_max": args.oversubscribed_coll_max, "p2p_tests": args.p2p_tests,
                   "coll_tests": args.coll_tests, "p2p_scale": args.p2p_scale, "coll_scale": args.coll_scale,
                   "providers": args.providers, "path_mode": args.path_mode, "ucx_perftest": args.ucx_perftest,
                   "figure": "each record: the median over repetitions of each run's figure (p50 of its samples); "
                             "spread = (max-min)/median over repetitions",
                   "verdict_sizes": list(records_mod.VERDICT_SIZES)},
        "units": [{"name": u.name, "suite": u.suite, "component": u.component, "np": getattr(u, "np", None),
                   "description": u.description,
                   "status": u.status(), "reason": u.status_reason(), "runs_ok": u.runs_ok,
                   "runs_failed": len(u.failures), "failures": u.failures, "test_failures": u.test_failures,
                   "command": shlex.join(u.command()), "seconds": [round(s, 2) for s in u.seconds], "info": u.info}
                  for u in units],
        "records": records,
        "verdict": verdict,
        "headlines": heads,
        "plots": [os.path.relpath(p, out_dir) for p, _, _ in plots],
        "errors": [{"unit": u.name, "reason": r} for u in units
                   for r in ([u.reason] if u.reason else u.failures + [f"{t}: {w}" for t, w in u.test_failures.items()])],
        "compare": compare_mod.compare(records, old, args.regression_threshold) if old else None,
    }
    errors = schema_mod.validate(doc)
    if errors:  # a bug in this program, not in what it measured: say so loudly, still write everything
        log("takyon-report: INTERNAL: the report JSON does not match its schema: " + "; ".join(errors[:5]))
    with open(os.path.join(out_dir, "takyon-report.json"), "w") as f:
        json.dump(doc, f, indent=1)
    shutil.copyfile(schema_mod.SCHEMA_PATH, os.path.join(out_dir, "takyon-report.schema.json"))
    write_csv(os.path.join(out_dir, "takyon-report.csv"), records)
    with open(os.path.join(out_dir, "machine.txt"), "w") as f:
        for k, v in machine.items():
            f.write(f"{k}: {html_mod.plain(v)}\n")
        f.write("\ncommands:\n")
        for u in doc["units"]:
            f.write(f"  {u['name']}: {u['command']}\n")
    with open(os.path.join(out_dir, "takyon-report.html"), "w") as f:
        f.write(html_mod.render(doc, plots, records, units))
    text = summary_text(doc, doc["compare"])
    with open(os.path.join(out_dir, "takyon-report.txt"), "w") as f:
        f.write(text)
    print(text, end="")
    print(f"\nreport: {os.path.join(out_dir, 'takyon-report.html')} (and .json, .csv, .txt, machine.txt, plots/, runs/)")
    if errors:
        return 3
    if args.fail_on_error and any(u.status() == "failed" for u in units):
        return 1
    return 0
