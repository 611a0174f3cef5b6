# SPDX-License-Identifier: MIT
"""From the runs' rows to the report's records: one per (suite, component, test, size), its figure
the median over repetitions with the spread, plus each record's ratio to Open MPI's best component
at the same test and size, and the headline ratios."""
import statistics

from .units import COLL_TESTS, P2P_TESTS
from .util import human_size, summarize

# test -> (unit, higher is better, what the figure is)
MPI_FIGURES = {
    "latency": ("us", False, "one-way latency (ping-pong RTT/2), p50 of samples"),
    "bandwidth": ("MB/s", True, "bandwidth, window of 64, from the p50 window time"),
    "bibw": ("MB/s", True, "bi-directional bandwidth (both ways together), window of 64, from the p50 window time"),
    "msgrate": ("Mmsg/s", True, "message rate, one pair, window of 64, from the p50 window time"),
}
for _t in COLL_TESTS:
    MPI_FIGURES[_t] = ("us", False, f"MPI_{_t.capitalize()} latency, mean over ranks, p50 of samples")


def mpi_value(test, row):
    """The per-run figure of one CSV row of mpi_p2p/mpi_coll."""
    if test in ("bandwidth", "bibw"):
        return float(row["p50_MBps"])
    if test == "msgrate":
        p50 = float(row["p50_us"])
        return 1.0 / p50 if p50 > 0 else 0.0
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
        for row in unit.rows:
            groups.setdefault((row["test"], int(row["bytes"])), []).append(row)
        order = P2P_TESTS + COLL_TESTS
        for (test, nbytes), rows in sorted(groups.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
            unit_name, higher, what = MPI_FIGURES[test]
            rec = {"suite": unit.suite, "component": unit.component, "test": test, "bytes": nbytes, "unit": unit_name,
                   "higher_is_better": higher, "figure": what}
            rec.update(summarize([mpi_value(test, r) for r in rows], noise))
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
        k = (rec["suite"], rec["test"], rec["bytes"])
        cur = best.get(k)
        if cur is None or (rec["median"] > cur["median"] if rec["higher_is_better"] else rec["median"] < cur["median"]):
            best[k] = rec
    for rec in records:
        b = best.get((rec["suite"], rec["test"], rec["bytes"])) if rec["suite"] != "path" else None
        rec["best_ompi"] = b["component"] if b else None
        rec["ratio_to_best_ompi"] = rec["median"] / b["median"] if b and b["median"] > 0 else None


def find(records, suite, component, test, nbytes):
    for r in records:
        if r["suite"] == suite and r["component"] == component and r["test"] == test and r["bytes"] == nbytes:
            return r
    return None


def headlines(records, units, args):
    """The table at the top of the report: takyon against its reference per size that matters."""
    rows = []
    by_unit = {u.name: u for u in units}

    def missing_reason(unit_name, test):
        u = by_unit.get(unit_name)
        if u is None:
            return "not run (left out by the options)"
        if u.status() in ("failed", "skipped"):
            return f"{u.status()}: {u.status_reason()}"
        if test in u.test_failures:
            return u.test_failures[test]
        return "not measured at this size"

    def mpi_row(suite, test, nbytes, label):
        ours = find(records, suite, "takyon", test, nbytes)
        row = {"what": label, "suite": suite, "test": test, "bytes": nbytes, "better": "higher"
               if MPI_FIGURES[test][1] else "lower", "unit": MPI_FIGURES[test][0]}
        if ours is None:
            u = by_unit.get(f"takyon/{suite}")
            failed = u is not None and (u.status() == "failed" or test in u.test_failures)
            row.update(status="failed" if failed else "n/a", reason=missing_reason(f"takyon/{suite}", test))
        elif ours["ratio_to_best_ompi"] is None:
            row.update(status="n/a", reason="no Open MPI configuration measured it", value=ours["median"])
        else:
            b = find(records, suite, ours["best_ompi"], test, nbytes)
            row.update(status="ok", value=ours["median"], reference=b["median"], against=ours["best_ompi"],
                       ratio=ours["ratio_to_best_ompi"], noisy=ours["noisy"] or b["noisy"])
            if ours.get("probe_ns") and b.get("probe_ns"):
                probes = ours["probe_ns"] + b["probe_ns"]
                row["probe_ns"] = [min(probes), max(probes)]
            if ours.get("switches_per_iter") is not None and b.get("switches_per_iter") is not None:
                row.update(switches=ours["switches_per_iter"], reference_switches=b["switches_per_iter"])
        rows.append(row)

    if "mpi_p2p" in args.suites:
        for test, nbytes, label in (("latency", 8, "MPI latency 8 B"), ("latency", 4096, "MPI latency 4 KiB"),
                                    ("bandwidth", 1 << 20, "MPI bandwidth 1 MiB"),
                                    ("bibw", 1 << 20, "MPI bi-directional bandwidth 1 MiB"),
                                    ("msgrate", 8, "MPI message rate 8 B")):
            if test in args.p2p_tests:
                mpi_row("mpi_p2p", test, nbytes, label)
    if "mpi_coll" in args.suites:
        for test in args.coll_tests:
            if test == "barrier":
                mpi_row("mpi_coll", "barrier", 0, f"MPI_Barrier, {args.coll_np} ranks")
            elif test in getattr(by_unit.get("takyon/mpi_coll"), "test_failures", {}):
                mpi_row("mpi_coll", test, 8, f"MPI_{test.capitalize()} (every size), {args.coll_np} ranks")
            else:
                # 8 B and 1 MiB, or the largest size swept when that is less (np 4 on 2 cores: 64 KiB).
                top = 1 << 20
                while top > 8 and top > args.coll_sizes[1]:
                    top >>= 1
                for nbytes in (8, top) if top > 8 else (8, 1 << 20):
                    mpi_row("mpi_coll", test, nbytes, f"MPI_{test.capitalize()} {human_size(nbytes)}, {args.coll_np} ranks")
    # Takyon's lower layers: the path API against MPI's best, and Ucx paths against ucx_perftest.
    for provider in ("InterProcessMemcpy", "InterProcessPointer"):
        ours = find(records, "path", f"{provider}/polling", "latency", 8)
        ref = next((r for r in records if r["suite"] == "mpi_p2p" and r["test"] == "latency" and r["bytes"] == 8
                    and r["component"] == (r["best_ompi"] or "")), None)
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
