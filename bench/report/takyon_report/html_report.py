# SPDX-License-Identifier: MIT
"""The self-contained HTML report, in the order a reader needs it: the verdict (takyon against Open
MPI's best per pattern, rank count and size, wins and losses marked, noisy figures flagged), the
path API's ratios, the plots (PNG, embedded), every figure in tables, the components with their
status, and last the machine and the exact commands that ran."""
import base64
import html
import os

from . import records as records_mod
from .util import human_size, placement_note, switches_note

CSS = """body{font-family:sans-serif;margin:2em;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 7px;font-size:13px}
th{background:#eee}td.num{text-align:right;font-family:monospace}.ok{color:#070}.failed{color:#b00;font-weight:bold}
.partial{color:#b60;font-weight:bold}.skipped{color:#666}.noisy{background:#fff3c4}.reg{background:#fdd}
.better{background:#dfd}code{font-size:12px;word-break:break-all}img{max-width:100%;border:1px solid #ddd}
td.win{background:#d6f5d6;color:#060;font-weight:bold;text-align:right;font-family:monospace}
td.loss{background:#fbd3d3;color:#a00;font-weight:bold;text-align:right;font-family:monospace}
td.win.uncertain{background:#effbef;font-weight:normal}td.loss.uncertain{background:#fdeeee;font-weight:normal}
td.win.noisy,td.loss.noisy{outline:3px dashed #e0a800;outline-offset:-3px}td.na{color:#888;text-align:center}
.legend span{padding:1px 6px;margin-right:6px}pre{background:#f6f6f6;padding:6px;white-space:pre-wrap}"""


# The machine table's labels where the JSON key does not read well.
LABELS = {"cpu_model": "CPU", "cores_allowed": "cores this process may use", "memory_gib": "memory (GiB)",
          "os": "OS", "open_mpi": "Open MPI", "ucx": "UCX", "loadavg_start": "load average at the start (1, 5, 15 min)",
          "loadavg_end": "load average at the end (1, 5, 15 min)", "takyon_version": "Takyon (git describe)",
          "takyon_build_type": "Takyon build type", "ucx_perftest": "ucx_perftest",
          "mpi_libraries": "MPI libraries (as the programs report them)", "mpi_compilers": "MPI programs' compilers",
          "elapsed_s": "report's duration (s)"}


def esc(x):
    return html.escape("" if x is None else str(x))


def plain(v):
    """A value as a reader wants it: lists joined, numbers short, nothing of Python's repr."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.2f}" if abs(v) < 1000 else f"{v:.0f}"
    if isinstance(v, (list, tuple)):
        return ", ".join(plain(x) for x in v)
    if isinstance(v, dict):
        return "; ".join(f"{k}: {plain(x)}" for k, x in v.items())
    return str(v)


def fmt(v, unit=None):
    if v is None:
        return "-"
    if unit == "us":
        return f"{v:.3f}" if v < 100 else f"{v:.1f}"
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def table(head, rows):
    out = ["<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"]
    for cells in rows:
        out.append("<tr>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _ranks(np, cores):
    return f"{np} ranks" + (f" (more ranks than the {cores} cores: oversubscribed)" if np > (cores or 1) else "")


def _verdict_cell(r):
    if r is None:
        return "<td></td>"
    if r["status"] != "ok":
        cls = "failed" if r["status"] == "failed" else "na"
        return f"<td class='{cls}' title='{esc(r.get('reason'))}'>{'failed' if r['status'] == 'failed' else '-'}</td>"
    cls = r["verdict"] + (" uncertain" if r.get("uncertain") else "") + (" noisy" if r["noisy"] else "")
    mark = ("&#10004;" if r["verdict"] == "win" else "&#10008;") + ("?" if r.get("uncertain") else "")
    rng = r.get("ratio_range")
    title = (f"takyon {fmt(r['value'], r['unit'])} {r['unit']} vs {r['against']} {fmt(r['reference'], r['unit'])} "
             f"{r['unit']}; spread {r['spread']:.0%}" + (f"; ratio over the runs {rng[0]:.2f}-{rng[1]:.2f}" if rng else ""))
    return (f"<td class='{cls}' title='{esc(title)}'>{mark} {r['ratio']:.2f}&times;"
            f"{' ~noisy' if r['noisy'] else ''}</td>")


def _verdict(doc, cfg, cores):
    rows = doc["verdict"]
    c = records_mod.verdict_counts(rows)
    parts = ["<h2 id='verdict'>Verdict: Takyon against Open MPI's best configuration</h2>",
             f"<p><b>{c['win']} win, {c['loss']} loss</b> ({c['uncertain']} of them uncertain, {c['noisy']} noisy), "
             f"{c['not measured']} not measured{esc(records_mod.probe_text(rows))}. Each cell is takyon / the best Open MPI configuration <i>in this run</i> at that pattern, "
             f"rank count and size (the p50 figure, median over {cfg['reps']} interleaved repetitions): above 1 is "
             f"faster for bandwidth and message rate, below 1 is faster for latency. The goal of each row is in its "
             f"second column.</p>",
             "<p class='legend'><span class='win' style='background:#d6f5d6'>&#10004; win: goal met</span>"
             "<span style='background:#fbd3d3'>&#10008; loss: goal missed</span>"
             "<span style='background:#effbef'>&#10004;? / &#10008;? uncertain: the goal lies within the ratio's "
             "range over the repetitions, so another run may say the other</span>"
             f"<span style='outline:3px dashed #e0a800'>~noisy: a side's spread over the repetitions exceeds "
             f"{cfg['noise_threshold']:.0%}; read it as a range</span><span>- not measured (hover for why)</span></p>"]
    for np, patterns in records_mod.verdict_grid(rows):
        parts.append(f"<h3>{esc(_ranks(np, cores))}</h3>")
        trs = [[esc(label), esc(goal_text)] + [_verdict_cell(r) for r in cells] for label, goal_text, cells in patterns]
        parts.append(table(["pattern", "goal (takyon / Open MPI)"] + [human_size(b) for b in records_mod.VERDICT_SIZES],
                           trs))
    failed = [r for r in rows if r["status"] == "failed"]
    if failed:
        parts.append("<p>Not measured because takyon failed:</p><ul>" + "".join(
            f"<li>{esc(r['pattern'])}, {r['np']} ranks, {esc(human_size(r['bytes']))}: {esc(r.get('reason'))}</li>"
            for r in failed) + "</ul>")
    # Every cell's numbers: p50 (the verdict's), average and p99, both sides.
    trs = []
    for r in rows:
        if r["status"] != "ok":
            continue
        t, ref = r["takyon_us"], r["reference_us"]
        note = switches_note(r) + placement_note(r)
        trs.append([esc(r["pattern"]), str(r["np"]), esc(human_size(r["bytes"])),
                    f"{r['goal_op']} {r['goal']:g}x", _verdict_cell(r),
                    f"<td class='num'>{fmt(r.get('ratio_avg'))}</td>",
                    f"<td class='num'>{fmt(r.get('ratio_p99'))}</td>",
                    f"<td class='num'>{fmt(r['value'], r['unit'])} {esc(r['unit'])}</td>",
                    f"<td class='num'>{fmt(r['reference'], r['unit'])} {esc(r['unit'])}</td>", esc(r["against"]),
                    f"<td class='num'>{fmt(t['p50_us'], 'us')} / {fmt(t['avg_us'], 'us')} / "
                    f"{fmt(t['p99_us'], 'us')}</td>",
                    f"<td class='num'>{fmt(ref['p50_us'], 'us')} / {fmt(ref['avg_us'], 'us')} / "
                    f"{fmt(ref['p99_us'], 'us')}</td>",
                    f"<td class='num'>{r['spread']:.0%}</td>",
                    f"<td class='num'>{plain(r.get('ratio_range'))}</td>", esc(note.strip())])
    parts.append("<details><summary>Every cell's numbers: ratio of the p50 (the verdict's), of the average and of "
                 "the p99; both sides' figures and their per-message times</summary>")
    parts.append(table(["pattern", "np", "size", "goal", "ratio (p50)", "ratio (avg)", "ratio (p99)", "takyon",
                        "Open MPI's best", "best is", "takyon us p50 / avg / p99", "Open MPI us p50 / avg / p99",
                        "spread", "ratio over the runs", "note"], trs))
    parts.append("<p>Per-message times: latency one-way; bandwidth and message rate the time per message of one "
                 "stream; collectives the time in the call, mean over ranks. Ratios of the average and the p99 are "
                 "oriented like the figure (for bandwidth and rate: Open MPI's time over takyon's).</p></details>")
    return parts


def render(doc, plots, records, units):
    m, cfg = doc["machine"], doc["config"]
    cores = m.get("cores")
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>takyon-report {esc(m['date'])}</title>"
             f"<style>{CSS}</style></head><body>",
             "<h1>Takyon report: every layer against Open MPI and raw UCX</h1>",
             f"<p>{'Quick' if cfg['quick'] else 'Full'} report of {esc(m['date'])} on {esc(m['cpu_model'])}, "
             f"{cores} cores ({m['elapsed_s']:.0f} s). Every figure is the median over {cfg['reps']} repetitions, "
             f"interleaved (each repetition runs every component once, in a rotated order). Sections: "
             f"<a href='#verdict'>verdict</a>, <a href='#path'>path API</a>, <a href='#plots'>plots</a>, "
             f"<a href='#figures'>all figures</a>, <a href='#components'>components</a>, "
             f"<a href='#machine'>machine and commands</a>.</p>"]
    parts += _verdict(doc, cfg, cores)
    # The path API's ratios.
    if doc["headlines"]:
        parts.append("<h2 id='path'>Path API</h2><p>takyon / reference: below 1 is better for latency, above 1 for "
                     "bandwidth.</p>")
        rows = []
        for h in doc["headlines"]:
            if h.get("ratio") is None:
                continue
            cls = " class='num noisy'" if h.get("noisy") else " class='num'"
            rows.append([esc(h["what"]), f"<td{cls}>{h['ratio']:.2f}x{' (noisy)' if h.get('noisy') else ''}</td>",
                         f"<td class='num'>{fmt(h['value'], h['unit'])} {esc(h['unit'])}</td>",
                         f"<td class='num'>{fmt(h['reference'], h['unit'])} {esc(h['unit'])}</td>", esc(h["against"]),
                         f"{esc(h['better'])} is better" + esc(switches_note(h) + placement_note(h))])
        parts.append(table(["figure", "ratio", "takyon", "reference", "reference is", "note"], rows))
    if doc.get("compare"):
        cmp = doc["compare"]
        parts.append(f"<h2>Compared with the report of {esc(cmp['against'])}</h2>")
        rows = []
        for r in cmp["rows"]:
            if r["verdict"] == "same":
                continue
            cls = "reg" if r["verdict"] == "REGRESSION" else "better"
            rows.append([f"<td class='{cls}'>{esc(r['verdict'])}</td>", esc(r["suite"]), esc(r["component"]),
                         esc(r.get("np") or ""), esc(r["test"]), esc(human_size(r["bytes"])), fmt(r["old"], r["unit"]),
                         fmt(r["new"], r["unit"]), f"{r['change']:+.1%}"])
        parts.append(f"<p>{len(cmp['rows'])} figures in both; threshold {cmp['threshold']:.0%} and beyond the two "
                     f"spreads; unchanged ones not listed.</p>")
        parts.append(table(["verdict", "suite", "component", "np", "test", "size", "old", "new", "change"], rows))
    # Plots.
    parts.append("<h2 id='plots'>Plots</h2>")
    for path, title, caption in plots:
        with open(path, "rb") as f:
            data = base64.b64encode(f.read()).decode()
        parts.append(f"<h3>{esc(title)}</h3><p>{esc(caption)} (<code>{esc(os.path.basename(path))}</code>)</p>"
                     f"<img alt='{esc(title)}' src='data:image/png;base64,{data}'>")
    parts += _all_figures(records, cores)
    # Components.
    parts.append("<h2 id='components'>Components</h2>")
    rows = []
    for u in doc["units"]:
        cls = u["status"]
        rows.append([esc(u["name"]), esc(u["description"]), f"<td class='{cls}'>{esc(u['status'])}</td>",
                     esc(u["reason"] or ""), f"{u['runs_ok']}/{u['runs_ok'] + u['runs_failed']}",
                     esc(plain([round(s, 1) for s in u["seconds"]]))])
    parts.append(table(["unit", "what", "status", "reason", "runs ok", "seconds per run"], rows))
    # Machine and commands, last.
    parts.append("<h2 id='machine'>Machine</h2>")
    rows = []
    for k, v in m.items():
        if k == "command_line":
            continue
        shown = "<br>".join(esc(plain(x)) for x in v) if isinstance(v, list) and k.startswith("mpi_") else esc(plain(v))
        rows.append([esc(LABELS.get(k, k.replace("_", " "))), shown])
    parts.append(table(["", ""], rows))
    parts.append("<h2 id='commands'>Commands</h2><p>The report:</p>"
                 f"<pre>{esc(m['command_line'])}</pre><p>Each unit, run once per repetition K (0, 1, ...) in the "
                 "report's folder, each MPI run after <code>takyon-bench --cpu-probe</code>:</p><pre>"
                 + "\n".join(esc(u["command"]) for u in doc["units"]) + "</pre>")
    parts.append("<h2>Files</h2><p><code>takyon-report.json</code> (schema <code>takyon-report/1</code>, "
                 "<code>takyon-report.schema.json</code>), <code>takyon-report.csv</code>, <code>plots/*.png</code>, "
                 "<code>runs/</code> (every run's OSU-format text, CSV and takyon-bench JSON), "
                 "<code>machine.txt</code>, <code>takyon-report.txt</code>.</p></body></html>")
    return "\n".join(parts)


def _all_figures(records, cores):
    parts = ["<h2 id='figures'>All figures</h2><p>Median over repetitions, <b>&plusmn;</b> half the spread "
             "(max-min)/median; <span class='noisy'>noisy</span> figures highlighted.</p>"]
    groups = [("mpi_p2p", np, f"MPI point-to-point, {_ranks(np, cores)}")
              for np in sorted({r.get("np") for r in records if r["suite"] == "mpi_p2p"})]
    groups += [("mpi_coll", np, f"MPI collectives, {_ranks(np, cores)}")
               for np in sorted({r.get("np") for r in records if r["suite"] == "mpi_coll"})]
    groups += [("mpi_rma", np, f"MPI one-sided, {_ranks(np, cores)}")
               for np in sorted({r.get("np") for r in records if r["suite"] == "mpi_rma"})]
    groups.append(("path", None, "Takyon path API (takyon-bench)"))
    for suite, np, title in groups:
        recs = [r for r in records if r["suite"] == suite and r.get("np") == np]
        if not recs:
            continue
        comps = list(dict.fromkeys(r["component"] for r in recs))
        tests = list(dict.fromkeys(r["test"] for r in recs))
        parts.append(f"<h3>{esc(title)}</h3>")
        if suite == "path":  # wide: one table per test, providers as rows
            for test in tests:
                tr = [r for r in recs if r["test"] == test]
                sizes = sorted({r["bytes"] for r in tr})
                rows = []
                for c in dict.fromkeys(r["component"] for r in tr):
                    cells = [esc(c)]
                    for s in sizes:
                        rec = next((r for r in tr if r["component"] == c and r["bytes"] == s), None)
                        cells.append(_cell(rec))
                    rows.append(cells)
                parts.append(f"<p><b>{esc(test)}</b> ({esc(tr[0]['unit'])})</p>")
                parts.append(table(["provider/mode"] + [human_size(s) for s in sizes], rows))
            continue
        for test in tests:
            tr = [r for r in recs if r["test"] == test]
            sizes = sorted({r["bytes"] for r in tr})
            rows = []
            for s in sizes:
                cells = [esc(human_size(s))]
                for c in comps:
                    cells.append(_cell(next((r for r in tr if r["component"] == c and r["bytes"] == s), None)))
                ours = next((r for r in tr if r["component"] == "takyon" and r["bytes"] == s), None)
                cells.append(f"<td class='num'>{ours['ratio_to_best_ompi']:.2f}x</td>" if ours and
                             ours["ratio_to_best_ompi"] else "<td>-</td>")
                rows.append(cells)
            parts.append(f"<p><b>{esc(test)}</b> ({esc(tr[0]['unit'])}; {esc(tr[0]['figure'])})</p>")
            parts.append(table(["size"] + comps + ["takyon / best Open MPI"], rows))
    return parts


def _cell(rec):
    if rec is None:
        return "<td>-</td>"
    cls = "num noisy" if rec["noisy"] else "num"
    return f"<td class='{cls}'>{fmt(rec['median'], rec['unit'])} ±{rec['spread'] * 50:.0f}%</td>"
