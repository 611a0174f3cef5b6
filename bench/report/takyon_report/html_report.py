# SPDX-License-Identifier: MIT
"""The self-contained HTML report: machine, components with their status, headline ratios, the
plots (PNG, embedded), and per-test tables of medians with their spread."""
import base64
import html
import os

from .util import human_size, placement_note, switches_note

CSS = """body{font-family:sans-serif;margin:2em;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 7px;font-size:13px}
th{background:#eee}td.num{text-align:right;font-family:monospace}.ok{color:#070}.failed{color:#b00;font-weight:bold}
.partial{color:#b60;font-weight:bold}.skipped{color:#666}.noisy{background:#fff3c4}.reg{background:#fdd}
.better{background:#dfd}code{font-size:12px;word-break:break-all}img{max-width:100%;border:1px solid #ddd}"""


def esc(x):
    return html.escape("" if x is None else str(x))


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


def render(doc, plots, records, units):
    m, cfg = doc["machine"], doc["config"]
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>takyon-report {esc(m['date'])}</title>"
             f"<style>{CSS}</style></head><body>",
             "<h1>Takyon report: every layer against Open MPI and raw UCX</h1>",
             f"<p>{esc(m['cpu_model'])}, {m['cores']} cores, {esc(m['memory_gib'])} GiB; {esc(m['os'])}, "
             f"Linux {esc(m['kernel'])}; {esc(m['date'])}; {m['elapsed_s']:.0f} s. Every figure is the median over "
             f"{cfg['reps']} repetitions, interleaved (each repetition runs every component once, in a rotated "
             f"order); <b>±</b> is half the spread (max-min)/median; a figure whose spread exceeds "
             f"{cfg['noise_threshold']:.0%} is marked <span class='noisy'>noisy</span>.</p>"]
    # Machine.
    parts.append("<h2>Machine</h2>")
    parts.append(table(["", ""], [[esc(k), f"<code>{esc(v)}</code>"] for k, v in m.items()]))
    # Components.
    parts.append("<h2>Components</h2>")
    rows = []
    for u in doc["units"]:
        cls = u["status"]
        rows.append([esc(u["name"]), esc(u["description"]), f"<td class='{cls}'>{esc(u['status'])}</td>",
                     esc(u["reason"] or ""), f"{u['runs_ok']}/{u['runs_ok'] + u['runs_failed']}",
                     f"<code>{esc(u['command'])}</code>"])
    parts.append(table(["unit", "what", "status", "reason", "runs ok", "command"], rows))
    # Headlines.
    parts.append("<h2>Headline ratios</h2><p>takyon / reference: below 1 is better for latency, above 1 "
                 "for bandwidth and rate.</p>")
    rows = []
    for h in doc["headlines"]:
        if h["status"] != "ok":
            rows.append([esc(h["what"]), f"<td class='failed'>{esc(h['status'])}</td>", "", "", "", esc(h.get("reason"))])
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
                         esc(r["test"]), esc(human_size(r["bytes"])), fmt(r["old"], r["unit"]), fmt(r["new"], r["unit"]),
                         f"{r['change']:+.1%}"])
        parts.append(f"<p>{len(cmp['rows'])} figures in both; threshold {cmp['threshold']:.0%} and beyond the two "
                     f"spreads; unchanged ones not listed.</p>")
        parts.append(table(["verdict", "suite", "component", "test", "size", "old", "new", "change"], rows))
    # Plots.
    parts.append("<h2>Plots</h2>")
    for path, title, caption in plots:
        with open(path, "rb") as f:
            data = base64.b64encode(f.read()).decode()
        parts.append(f"<h3>{esc(title)}</h3><p>{esc(caption)} (<code>{esc(os.path.basename(path))}</code>)</p>"
                     f"<img alt='{esc(title)}' src='data:image/png;base64,{data}'>")
    # Tables.
    parts.append("<h2>All figures</h2>")
    suites = [("mpi_p2p", "MPI point-to-point (2 ranks)"), ("mpi_coll", f"MPI collectives ({cfg['coll_np']} ranks)"),
              ("path", "Takyon path API (takyon-bench)")]
    for suite, title in suites:
        recs = [r for r in records if r["suite"] == suite]
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
    parts.append("<h2>Files</h2><p><code>takyon-report.json</code> (schema <code>takyon-report/1</code>, "
                 "<code>takyon-report.schema.json</code>), <code>takyon-report.csv</code>, <code>plots/*.png</code>, "
                 "<code>runs/</code> (every run's OSU-format text, CSV and takyon-bench JSON), "
                 "<code>machine.txt</code>.</p></body></html>")
    return "\n".join(parts)


def _cell(rec):
    if rec is None:
        return "<td>-</td>"
    cls = "num noisy" if rec["noisy"] else "num"
    return f"<td class='{cls}'>{fmt(rec['median'], rec['unit'])} ±{rec['spread'] * 50:.0f}%</td>"
