# SPDX-License-Identifier: MIT
"""From the runs' rows to the report's records: one per (suite, component, test, size), its figure
the median over repetitions with the spread, plus each record's ratio to Open MPI's best component
at the same test and size, and the headline ratios."""
import statistics

from .units import P2P_TESTS
from .util import human_size, summarize

# mpi_p2p test -> (unit, higher is better, what the figure is)
P2P_FIGURES = {
    "latency": ("us", False, "one-way latency (ping-pong RTT/2), p50 of samples"),
    "bandwidth": ("MB/s", True, "bandwidth, window of 64 from one send buffer into one receive buffer, "
                                "from the p50 window time"),
    "bibw": ("MB/s", True, "bi-directional bandwidth (both ways together), window of 64, from the p50 window time"),
    "msgrate": ("Mmsg/s", True, "message rate of all pairs together (rank i -> i + n/2, window of 64), "
                                "from the p50 window time"),
}


def mpi_function(test):
    """The MPI call a collective test measures: reduce_scatter_block -> MPI_Reduce_scatter_block."""
    return "MPI_" + test.capitalize()


# mpi_rma test -> (unit, higher is better, what the figure is); see bench/mpi/mpi_rma.c
RMA_FIGURES = {
    "put_latency": ("us", False, "MPI_Put + MPI_Win_flush under a shared lock, p50 of samples"),
    "get_latency": ("us", False, "MPI_Get + MPI_Win_flush under a shared lock, p50 of samples"),
    "put_bw": ("MB/s", True, "window of 64 MPI_Put + one flush, from the p50 window time"),
    "get_bw": ("MB/s", True, "window of 64 MPI_Get + one flush, from the p50 window time"),
    "put_bibw": ("MB/s", True, "both ways, PSCW epoch of 64 MPI_Put, from the p50 window time"),
    "acc_latency": ("us", False, "MPI_Accumulate(MPI_SUM) + flush, p50 of samples"),
    "fetch_and_op": ("us", False, "MPI_Fetch_and_op + flush, 8 B, p50 of samples"),
    "compare_and_swap": ("us", False, "MPI_Compare_and_swap + flush, 8 B, p50 of samples"),
    "fence": ("us", False, "one MPI_Win_fence epoch with one 8 B put, p50 of samples"),
    "pscw": ("us", False, "one post/start/complete/wait epoch with one 8 B put, p50 of samples"),
}
RMA_PATTERNS = (("put_latency", "put latency (lock/flush)", "<=", 0.5), ("get_latency", "get latency (lock/flush)", "<=", 0.5),
                ("put_bw", "put bandwidth (lock/flush)", ">=", 1.1), ("get_bw", "get bandwidth (lock/flush)", ">=", 1.1),
                ("fetch_and_op", "MPI_Fetch_and_op latency", "<=", 0.5),
                ("compare_and_swap", "MPI_Compare_and_swap latency", "<=", 0.5),
                ("fence", "MPI_Win_fence epoch", "<=", 0.7), ("pscw", "PSCW epoch", "<=", 0.7))
RMA_BANDWIDTH_MIN = 64 << 10  # the one-sided bandwidth goals hold from 64 KiB


def figure_of(suite, test):
    """(unit, higher is better, what) of an MPI test; any mpi_coll test is a latency."""
    if suite == "mpi_p2p" and test in P2P_FIGURES:
        return P2P_FIGURES[test]
    if suite == "mpi_rma" and test in RMA_FIGURES:
        return RMA_FIGURES[test]
    return "us", False, f"{mpi_function(test)} latency, mean over ranks, p50 of samples"


def mpi_value(test, row, np=2):
    """The per-run figure of one CSV row of mpi_p2p/mpi_coll (msgrate: np/2 pairs stream at once)."""
    if test in ("bandwidth", "bibw", "put_bw", "get_bw", "put_bibw"):
        return float(row["p50_MBps"])
    if test == "msgrate":
        p50 = float(row["p50_us"])
        return max(1, np // 2) / p50 if p50 > 0 else 0.0
    return float(row["p50_us"])


def path_figure(rec):
    """(value, unit, higher_is_better) of one takyon-bench record."""
    if rec.get("bandwidth_MBps") is not None and ("bandwidth" in rec["test"] or rec["test"].endswith("_bw")
                                                  or rec["test"] == "floor_memcpy"):
        return float(rec["bandwidth_MBps"]), "MB/s", True
    return float(rec["p50"]), "us", False


def aggregate(units, noise):
    records = []
    for unit in units:
        groups = {}
        if unit.suite == "path":
            for row in unit.rows:
                if row.get("p50") is None:
                    continue
                groups.setdefault((f"{row['provider']}/{row['mode']}", row["test"], int(row["bytes"])), []).append(row)
            for (comp, test, nbytes), rows in sorted(groups.items()):
                figs = [path_figure(r) for r in rows]
                rec = {"suite": "path", "component": comp, "test": test, "bytes": nbytes, "unit": figs[0][1],
                       "higher_is_better": figs[0][2],
                       "figure": "takyon-bench: one-way latency p50 (us) or bandwidth (MB/s)"}
                rec.update(summarize([f[0] for f in figs], noise))
                rec["p50_us"] = statistics.median(float(r["p50"]) for r in rows)
                p99 = [float(r["p99"]) for r in rows if r.get("p99") is not None]
                rec["p99_us"] = statistics.median(p99) if p99 else None
                rec["min_us"] = statistics.median(float(r["min"]) for r in rows)
                rec["avg_us"] = statistics.median(float(r["mean"]) for r in rows)
                rec["max_us"] = None
                ratios = [float(r["ratio_to_floor"]) for r in rows if r.get("ratio_to_floor") is not None]
                rec["ratio_to_baseline"] = statistics.median(ratios) if ratios else None
                if rows[0].get("from"):
                    rec["from"] = rows[0]["from"]
                rec["validated"] = None
                records.append(rec)
            continue
        order = []  # tests in the order the program wrote them
        for row in unit.rows:
            if row["test"] not in order:
                order.append(row["test"])
            groups.setdefault((row["test"], int(row["bytes"])), []).append(row)
        for (test, nbytes), rows in sorted(groups.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
            unit_name, higher, what = figure_of(unit.suite, test)
            rec = {"suite": unit.suite, "component": unit.component, "np": unit.np, "test": test, "bytes": nbytes,
                   "unit": unit_name, "higher_is_better": higher, "figure": what}
            rec.update(summarize([mpi_value(test, r, unit.np) for r in rows], noise))
            for key in ("avg_us", "min_us", "p50_us", "p99_us", "max_us"):
                rec[key] = statistics.median(float(r[key]) for r in rows)
            rec["iterations"] = int(rows[0]["iterations"])
            rec["validated"] = sum(int(r["validated"]) for r in rows)
            if unit.suite == "mpi_coll":  # context switches of all ranks per iteration (None: a CSV without)
                sw = [float(r["switches_per_iter"]) for r in rows if r.get("switches_per_iter") not in (None, "")]
                rec["switches_per_iter"] = statistics.median(sw) if len(sw) == len(rows) else None
            if "ranks" in rows[0]:
                rec["ranks"] = int(rows[0]["ranks"])
            # The CPU probe before each run behind the figure (util.cpu_probe), in run order.
            probes = [r["probe_ns"] for r in rows if r.get("probe_ns") is not None]
            rec["probe_ns"] = probes if probes and len(probes) == len(rows) else None
            records.append(rec)
    add_ratios(records)
    return records


def add_ratios(records):
    """ratio_to_best_ompi: each MPI record's figure / the best Open MPI component's at that test and
    size (latency: lower is better; bandwidth, rate: higher is better)."""
    best = {}
    for rec in records:
        if not rec["component"].startswith("ompi"):
            continue
        k = (rec["suite"], rec.get("np"), rec["test"], rec["bytes"])
        cur = best.get(k)
        if cur is None or (rec["median"] > cur["median"] if rec["higher_is_better"] else rec["median"] < cur["median"]):
            best[k] = rec
    for rec in records:
        b = best.get((rec["suite"], rec.get("np"), rec["test"], rec["bytes"])) if rec["suite"] != "path" else None
        rec["best_ompi"] = b["component"] if b else None
        rec["ratio_to_best_ompi"] = rec["median"] / b["median"] if b and b["median"] > 0 else None


def find(records, suite, component, test, nbytes, np=None):
    for r in records:
        if r["suite"] == suite and r["component"] == component and r["test"] == test and r["bytes"] == nbytes \
                and (np is None or r.get("np") == np):
            return r
    return None


# The verdict: the sizes every pattern is judged at, and the goals (takyon / Open MPI's best).
VERDICT_SIZES = (8, 4 << 10, 256 << 10, 1 << 20, 4 << 20)
P2P_PATTERNS = (("bandwidth", "windowed bandwidth"), ("bibw", "bi-directional bandwidth"),
                ("msgrate", "multi-pair message rate"), ("latency", "ping-pong latency"))
BANDWIDTH_GOAL = 1.1      # bandwidth, bi-directional bandwidth, message rate: at least this
LATENCY_GOAL = 0.65       # point-to-point latency at 8 B: at most this
COLL_SMALL_GOAL = 0.7     # a collective at <= COLL_SMALL_BYTES: at most this
COLL_SMALL_BYTES = 4096
COLL_GOAL = 1.0           # a collective above COLL_SMALL_BYTES: at most this


def goal(suite, test, nbytes):
    """(operator, ratio) takyon / Open MPI's best must meet: ('>=', 1.1) or ('<=', x)."""
    if suite == "mpi_p2p":
        return ("<=", LATENCY_GOAL) if test == "latency" else (">=", BANDWIDTH_GOAL)
    if suite == "mpi_rma":
        return next((op, g) for t, _, op, g in RMA_PATTERNS if t == test)
    return "<=", COLL_SMALL_GOAL if nbytes <= COLL_SMALL_BYTES else COLL_GOAL


def _stat_ratio(ours, ref, key, higher):
    """takyon / reference of one per-message time statistic (avg_us, p99_us), oriented like the
    figure: for bandwidth and rate the reference's time over ours."""
    a, b = ours.get(key), ref.get(key)
    if not a or not b:
        return None
    return b / a if higher else a / b


def _missing_reason(by_unit, unit_name, test, nbytes=None):
    u = by_unit.get(unit_name)
    if u is None:
        return "not run (left out by the options)"
    if u.status() in ("failed", "skipped"):
        return f"{u.status()}: {u.status_reason()}"
    if test in u.test_failures:
        return u.test_failures[test]
    if nbytes is not None and getattr(u, "sizes", None) and not u.sizes[0] <= nbytes <= u.sizes[1]:
        return (f"not swept: this run's sizes at {u.np} ranks stop at {human_size(u.sizes[1])}"
                + (" (the quick report's limit where ranks outnumber cores; --full sweeps all)"
                   if getattr(u.args, "oversubscribed_coll_max", None) else ""))
    return "not measured at this size"


def verdict(records, units, args):
    """The report's headline: per pattern, rank count and size, takyon against Open MPI's best
    configuration in the same run, the ratio, the goal, win or loss, and noisy where either side's
    spread over the repetitions exceeds the noise threshold. The collectives are those the programs
    reported (records, or a failure), in the order they ran."""
    by_unit = {u.name: u for u in units}
    patterns = []  # (suite, test, label, [np...])
    if "mpi_p2p" in args.suites:
        for test, label in P2P_PATTERNS:
            if test in args.p2p_tests:
                patterns.append(("mpi_p2p", test, label, args.np if test == "msgrate" else [2]))
    if "mpi_rma" in args.suites:
        patterns += [("mpi_rma", test, label, [2]) for test, label, _, _ in RMA_PATTERNS]
    if "mpi_coll" in args.suites:
        # In the order the programs ran them: the component that reported the most first, then the others'.
        per_comp = {}
        for r in records:
            if r["suite"] == "mpi_coll" and r["test"] not in per_comp.setdefault(r["component"], []):
                per_comp[r["component"]].append(r["test"])
        tests = []
        for comp_tests in sorted(per_comp.values(), key=len, reverse=True):
            tests += [t for t in comp_tests if t not in tests]
        for u in units:
            if u.suite == "mpi_coll":
                tests += [t for t in u.test_failures if t not in tests]
        patterns += [("mpi_coll", t, mpi_function(t), args.np) for t in tests]
    rows = []
    for suite, test, label, nps in patterns:
        lo, hi = {"mpi_p2p": args.p2p_sizes, "mpi_rma": getattr(args, "rma_sizes", None)}.get(suite, args.coll_sizes)
        if suite == "mpi_p2p" and test == "latency" or suite == "mpi_rma" and not RMA_FIGURES[test][1]:
            sizes = [8]
        elif suite == "mpi_rma":
            sizes = [b for b in VERDICT_SIZES if b >= RMA_BANDWIDTH_MIN and lo <= b <= hi] or [hi]
        elif suite == "mpi_coll" and any(r["test"] == test for r in records if r["suite"] == suite) and \
                all(r["bytes"] == 0 for r in records if r["suite"] == suite and r["test"] == test):
            sizes = [0]  # a collective without payload (barrier)
        else:
            sizes = [b for b in VERDICT_SIZES if lo <= b <= hi] or [hi]
        unit_name, higher, _ = figure_of(suite, test)
        for np in nps:
            for nbytes in sizes:
                op, target = goal(suite, test, nbytes)
                row = {"pattern": label, "suite": suite, "test": test, "np": np, "bytes": nbytes, "unit": unit_name,
                       "better": "higher" if higher else "lower", "goal_op": op, "goal": target}
                ours = find(records, suite, "takyon", test, nbytes, np)
                if ours is None:
                    u = by_unit.get(f"takyon/{suite}/np{np}")
                    failed = u is not None and (u.status() == "failed" or test in u.test_failures)
                    row.update(status="failed" if failed else "n/a",
                               reason=_missing_reason(by_unit, f"takyon/{suite}/np{np}", test, nbytes))
                    rows.append(row)
                    continue
                ref = find(records, suite, ours["best_ompi"], test, nbytes, np) if ours["best_ompi"] else None
                if ref is None or ours["ratio_to_best_ompi"] is None:
                    row.update(status="n/a", reason="no Open MPI configuration measured it", value=ours["median"])
                    rows.append(row)
                    continue
                ratio = ours["ratio_to_best_ompi"]
                met = ratio >= target if op == ">=" else ratio <= target
                row.update(status="ok", value=ours["median"], reference=ref["median"], against=ref["component"],
                           ratio=ratio, verdict="win" if met else "loss",
                           ratio_avg=_stat_ratio(ours, ref, "avg_us", higher),
                           ratio_p99=_stat_ratio(ours, ref, "p99_us", higher),
                           takyon_us={k: ours.get(k) for k in ("avg_us", "p50_us", "p99_us")},
                           reference_us={k: ref.get(k) for k in ("avg_us", "p50_us", "p99_us")},
                           spread=max(ours["spread"], ref["spread"]), noisy=bool(ours["noisy"] or ref["noisy"]))
                # The ratio's range over the repetitions (takyon's worst and best against the reference's
                # best and worst): where the goal lies inside it, another run may give the other verdict.
                if ref["max"] > 0 and ref["min"] > 0:
                    lo, hi = ours["min"] / ref["max"], ours["max"] / ref["min"]
                    row.update(ratio_range=[lo, hi], uncertain=bool(lo < target < hi))
                if ours.get("probe_ns") and ref.get("probe_ns"):
                    probes = ours["probe_ns"] + ref["probe_ns"]
                    row["probe_ns"] = [min(probes), max(probes)]
                if ours.get("switches_per_iter") is not None and ref.get("switches_per_iter") is not None:
                    row.update(switches=ours["switches_per_iter"], reference_switches=ref["switches_per_iter"])
                rows.append(row)
    return rows


def verdict_counts(rows):
    """{"win": n, "loss": n, "noisy": n, "uncertain": n, "not measured": n} over the verdict's rows."""
    c = {"win": 0, "loss": 0, "noisy": 0, "uncertain": 0, "not measured": 0}
    for r in rows:
        if r["status"] == "ok":
            c[r["verdict"]] += 1
            c["noisy"] += r["noisy"]
            c["uncertain"] += bool(r.get("uncertain"))
        else:
            c["not measured"] += 1
    return c


def headlines(records, units, args):
    """Takyon's lower layers, below the verdict: the path API against MPI's best, and the Ucx
    paths against ucx_perftest."""
    rows = []
    for provider in ("InterProcessMemcpy", "InterProcessPointer"):
        ours = find(records, "path", f"{provider}/polling", "latency", 8)
        ref = next((r for r in records if r["suite"] == "mpi_p2p" and r["test"] == "latency" and r["bytes"] == 8
                    and r.get("np") == 2 and r["component"] == (r["best_ompi"] or "")), None)
        if ours and ref:
            rows.append({"what": f"path API {provider} latency 8 B (polling) vs Open MPI's best MPI", "suite": "path",
                         "test": "latency", "bytes": 8, "better": "lower", "unit": "us", "status": "ok",
                         "value": ours["median"], "reference": ref["median"], "against": ref["component"],
                         "ratio": ours["median"] / ref["median"], "noisy": ours["noisy"] or ref["noisy"]})
    for r in records:
        if r["suite"] == "path" and r["test"].startswith("ucx_perftest_best") and r["component"].endswith("/polling"):
            provider = r["component"].split("/")[0]
            test = "latency" if r["test"].endswith("latency") else "bandwidth"
            ours = find(records, "path", r["component"], test, r["bytes"])
            if ours:
                rows.append({"what": f"path API {provider} {test} {human_size(r['bytes'])} (polling) vs ucx_perftest",
                             "suite": "path", "test": test, "bytes": r["bytes"], "better": "lower" if test == "latency"
                             else "higher", "unit": ours["unit"], "status": "ok", "value": ours["median"],
                             "reference": r["median"], "against": r.get("from", "ucx_perftest"),
                             "ratio": ours["median"] / r["median"] if r["median"] > 0 else None,
                             "noisy": ours["noisy"] or r["noisy"]})
    return rows


def probe_text(rows):
    """The CPU placement probes behind the verdict: '; CPU placement probe 38-45 ns one-way' (or '')."""
    probes = [p for r in rows for p in r.get("probe_ns") or []]
    if not probes:
        return ""
    return (f"; CPU placement probe {min(probes):.0f}-{max(probes):.0f} ns one-way (cache-line ping-pong "
            f"before each MPI run{', the CPUs moved' if max(probes) >= 1.5 * min(probes) else ''})")


def verdict_grid(rows):
    """The verdict as tables: [(np, [(pattern, goal text, cells)])], cells one per VERDICT_SIZES
    column (a collective without payload in the first), None where the pattern has no such size."""
    tables = {}
    for r in rows:
        patterns = tables.setdefault(r["np"], {})
        key = (r["suite"], r["test"])
        if key not in patterns:
            if r["suite"] in ("mpi_p2p", "mpi_rma"):
                goal_text = f"{'>=' if r['goal_op'] == '>=' else '<='} {r['goal']:g}x"
            else:
                goal_text = f"<= {COLL_SMALL_GOAL:g}x to {human_size(COLL_SMALL_BYTES)}, {COLL_GOAL:.1f}x above"
            label = r["pattern"] + (" (no payload)" if r["bytes"] == 0 and r["suite"] == "mpi_coll" else "")
            patterns[key] = (label, goal_text, [None] * len(VERDICT_SIZES))
        col = VERDICT_SIZES.index(r["bytes"]) if r["bytes"] in VERDICT_SIZES else 0
        patterns[key][2][col] = r
    return [(np, list(tables[np].values())) for np in sorted(tables)]


def verdict_cell_text(r):
    """A verdict cell in plain text: '1.23x win', '0.80x LOSS', '?' when uncertain, '~' when noisy,
    '-' not measured."""
    if r is None:
        return ""
    if r["status"] == "failed":
        return "FAILED"
    if r["status"] != "ok":
        return "-"
    return (f"{r['ratio']:.2f}x {'win' if r['verdict'] == 'win' else 'LOSS'}{'?' if r.get('uncertain') else ''}"
            f"{'~' if r['noisy'] else ''}")
