# SPDX-License-Identifier: MIT
"""--compare old.json: every record present in both reports, its change, and the regressions:
a figure worse by more than the threshold and by more than the two runs' spreads together."""


def key(rec, coll_np=None):
    """(suite, component, rank count, test, size). A report from before records carried their rank
    count ran mpi_p2p at 2 ranks and mpi_coll at its config's coll_np."""
    np = rec.get("np")
    if np is None and rec["suite"] != "path":
        np = coll_np if rec["suite"] == "mpi_coll" else 2
    return (rec["suite"], rec["component"], np, rec["test"], rec["bytes"])


def compare(new_records, old_doc, threshold):
    coll_np = old_doc.get("config", {}).get("coll_np")
    old = {key(r, coll_np): r for r in old_doc.get("records", [])}
    rows = []
    for rec in new_records:
        o = old.get(key(rec))
        if o is None or not o.get("median") or not rec["median"]:
            continue
        # change > 0: better, < 0: worse, whichever direction the figure improves in.
        change = rec["median"] / o["median"] - 1 if rec["higher_is_better"] else o["median"] / rec["median"] - 1
        noise = (rec.get("spread", 0) + o.get("spread", 0)) / 2
        verdict = "same"
        if change < -threshold and -change > noise:
            verdict = "REGRESSION"
        elif change > threshold and change > noise:
            verdict = "better"
        rows.append({"suite": rec["suite"], "component": rec["component"], "np": rec.get("np"), "test": rec["test"],
                     "bytes": rec["bytes"],
                     "unit": rec["unit"], "old": o["median"], "new": rec["median"], "change": change,
                     "noise": noise, "verdict": verdict})
    missing = [list(k) for k in old if k not in {key(r) for r in new_records}]
    return {"against": old_doc.get("machine", {}).get("date"), "against_command": old_doc.get("machine", {})
            .get("command_line"), "threshold": threshold, "rows": rows, "only_in_old": missing}


def print_compare(cmp, out):
    rows = cmp["rows"]
    regress = [r for r in rows if r["verdict"] == "REGRESSION"]
    better = [r for r in rows if r["verdict"] == "better"]
    print(f"\ncompared with the report of {cmp['against']}: {len(rows)} figures in both, {len(regress)} regressions, "
          f"{len(better)} better (threshold {cmp['threshold']:.0%} and beyond the spreads)", file=out)
    shown = regress + better
    if shown:
        print(f"  {'verdict':<11} {'suite':<8} {'component':<24} {'np':>3} {'test':<10} {'bytes':>8} {'old':>11} "
              f"{'new':>11} {'change':>8}", file=out)
        for r in shown:
            print(f"  {r['verdict']:<11} {r['suite']:<8} {r['component']:<24} {r.get('np') or '':>3} {r['test']:<10} "
                  f"{r['bytes']:>8} "
                  f"{r['old']:>11.4g} {r['new']:>11.4g} {r['change']:>+8.1%}", file=out)
    if cmp["only_in_old"]:
        print(f"  {len(cmp['only_in_old'])} figures of the old report are not in this one", file=out)
