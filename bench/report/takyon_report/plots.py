# SPDX-License-Identifier: MIT
"""The report's plots, drawn with matplotlib (Agg, PNG): log-log latency and bandwidth against
size, the ratio to Open MPI's best per size, the collectives, and the path API per provider.
Every point is the median over repetitions; the error bars span min..max over them."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .util import human_size  # noqa: E402

STYLE = {"takyon": ("tab:red", "o", "-"), "ompi-ob1-vader": ("tab:blue", "s", "--"),
         "ompi-ob1-vader-cma": ("tab:cyan", "^", "--"), "ompi-ucx": ("tab:green", "v", "--"),
         "ompi-default": ("tab:gray", "D", ":")}
MARKERS = "osv^D<>xP*"
LINES = ["-", "--", "-.", ":"]


def _style(component, i):
    """Fixed styles for the MPI components; any other (providers, --ompi-config) gets the i-th of
    20 colours, 10 markers and 4 line styles."""
    if component in STYLE:
        return STYLE[component]
    return (matplotlib.colormaps["tab20"](i % 20), MARKERS[i % len(MARKERS)], LINES[(i // 5) % len(LINES)])


def _size_axis(ax, sizes=None):
    ax.set_xscale("log", base=2)
    lo, hi = (min(sizes), max(sizes)) if sizes else (1, 1 << 22)
    ticks = [1 << k for k in range(0, 27) if lo <= 1 << k <= hi]
    while len(ticks) > 9:
        ticks = ticks[::2]
    ax.set_xticks(ticks)
    ax.set_xticklabels([], minor=True)
    ax.set_xticklabels([human_size(t).replace(" ", "") for t in ticks], fontsize=7)
    ax.set_xlabel("message size")
    ax.grid(True, which="both", alpha=0.3)


def _series(ax, records, suite, test, components, failed_notes, log_y=True, value="median", np=None):
    drawn, sizes = 0, []
    for i, comp in enumerate(components):
        pts = sorted((r for r in records if r["suite"] == suite and r["component"] == comp and r["test"] == test
                      and r["bytes"] > 0 and (np is None or r.get("np") == np)), key=lambda r: r["bytes"])
        if not pts:
            continue
        color, marker, line = _style(comp, i)
        xs = [p["bytes"] for p in pts]
        sizes += xs
        ys = [p[value] for p in pts]
        err = [[p[value] - p["min"] for p in pts], [p["max"] - p[value] for p in pts]] if value == "median" else None
        ax.errorbar(xs, ys, yerr=err, color=color, marker=marker, linestyle=line, markersize=3, linewidth=1.2,
                    capsize=2, label=comp + (" (noisy)" if any(p["noisy"] for p in pts) else ""))
        drawn += 1
    if log_y:
        ax.set_yscale("log")
    _size_axis(ax, sizes)
    _notes(ax, [(c, why) for c, why in failed_notes if c in components], 0.01, "bottom")
    if drawn:
        ax.legend(fontsize=7)
    return drawn


def _short(why):
    """The gist of a failure for a plot: the MPI error class, or the start of the reason."""
    for word in str(why).replace(":", " ").split():
        if word.startswith("MPI_ERR_"):
            return word
    return str(why)[:48] + ("..." if len(str(why)) > 48 else "")


def _notes(ax, notes, y, va):
    if notes:
        ax.text(0.01, y, "not measured (see the components table):\n" + "\n".join(
            f"{c}: {_short(w)}" for c, w in notes[:6]), transform=ax.transAxes, fontsize=6, va=va, color="tab:red",
                bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": "none"})


def _failed_notes(units, suite, test, np=None):
    notes = []
    for u in units:
        if u.suite != suite or (np is not None and u.np != np):
            continue
        if u.status() in ("failed", "skipped"):
            notes.append((u.component, f"{u.status()}: {u.status_reason()}"))
        elif test in u.test_failures:
            notes.append((u.component, u.test_failures[test]))
    return notes


def _save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_all(records, units, mpi_components, out_dir):
    """Draws every plot that has data; returns [(path, title, caption)]."""
    os.makedirs(out_dir, exist_ok=True)
    out = []
    comps = [c[0] for c in mpi_components]
    has = lambda suite, test: any(r["suite"] == suite and r["test"] == test for r in records)  # noqa: E731

    # 1. MPI point-to-point latency and bandwidth, log-log: the 2-rank tests, then msgrate at each rank count.
    titles = {"latency": "MPI ping-pong latency", "bandwidth": "MPI bandwidth (window 64)",
              "bibw": "MPI bi-directional bandwidth", "msgrate": "MPI message rate, all pairs"}
    p2p = [(t, np) for t in ("latency", "bandwidth", "bibw", "msgrate")
           for np in sorted({r.get("np") for r in records if r["suite"] == "mpi_p2p" and r["test"] == t})]
    if p2p:
        fig, axes = plt.subplots(1, len(p2p), figsize=(4.6 * len(p2p), 4.2), squeeze=False)
        for ax, (test, np) in zip(axes[0], p2p):
            _series(ax, records, "mpi_p2p", test, comps, _failed_notes(units, "mpi_p2p", test, np), np=np)
            unit = next(r["unit"] for r in records if r["suite"] == "mpi_p2p" and r["test"] == test)
            ax.set_ylabel({"us": "one-way latency (us)", "MB/s": "MB/s", "Mmsg/s": "million messages/s"}[unit])
            ax.set_title(f"{titles[test]}, {np} ranks", fontsize=10)
        out.append((_save(fig, out_dir, "mpi_p2p.png"), "MPI point-to-point",
                    "libtakyon_mpi under takyon-run and Open MPI's configurations, same sources; one send and one "
                    "receive buffer per side for a whole window; median over repetitions, bars min..max; 0 B is "
                    "in the tables, not on the log axis."))

        # 2. Ratio of takyon to Open MPI's best at each size.
        fig, ax = plt.subplots(figsize=(7, 4.2))
        drawn = 0
        for i, (test, np) in enumerate(p2p):
            pts = sorted((r for r in records if r["suite"] == "mpi_p2p" and r["component"] == "takyon"
                          and r["test"] == test and r.get("np") == np and r["bytes"] > 0 and r["ratio_to_best_ompi"]),
                         key=lambda r: r["bytes"])
            if pts:
                ax.plot([p["bytes"] for p in pts], [p["ratio_to_best_ompi"] for p in pts], marker="os^vD"[i % 5],
                        markersize=3,
                        label=f"{test}, {np} ranks ({'lower' if test == 'latency' else 'higher'} is better)")
                drawn += 1
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        _size_axis(ax, [r["bytes"] for r in records if r["suite"] == "mpi_p2p" and r["bytes"] > 0])
        ax.set_ylabel("takyon / best Open MPI configuration")
        ax.set_title("libtakyon_mpi relative to Open MPI's best, per size", fontsize=10)
        if drawn:
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "no ratio: takyon or every Open MPI configuration failed", ha="center",
                    transform=ax.transAxes, color="tab:red")
        out.append((_save(fig, out_dir, "mpi_ratio.png"), "Ratio to Open MPI's best",
                    "Each size's takyon figure divided by the best Open MPI configuration's at that size."))

    # 3. Collectives: one figure per rank count, one panel per collective (as the programs reported them).
    for np in sorted({u.np for u in units if u.suite == "mpi_coll"}):
        coll = [r["test"] for r in records if r["suite"] == "mpi_coll" and r.get("np") == np]
        coll = list(dict.fromkeys(coll + [t for u in units if u.suite == "mpi_coll" and u.np == np
                                          for t in u.test_failures]))
        if not coll:
            continue
        cols = 5 if len(coll) > 8 else 4
        rows = (len(coll) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(4.0 * cols, 3.5 * rows), squeeze=False)
        for k, test in enumerate(coll):
            ax = axes[k // cols][k % cols]
            notes = _failed_notes(units, "mpi_coll", test, np)
            sized = [r for r in records if r["suite"] == "mpi_coll" and r["test"] == test and r.get("np") == np]
            if sized and all(r["bytes"] == 0 for r in sized):  # barrier: no size, a bar per component
                vals = [(c, next((r for r in sized if r["component"] == c), None)) for c in comps]
                vals = [(c, r) for c, r in vals if r]
                ax.bar(range(len(vals)), [r["median"] for _, r in vals],
                       yerr=[[r["median"] - r["min"] for _, r in vals], [r["max"] - r["median"] for _, r in vals]],
                       color=[_style(c, i)[0] for i, (c, _) in enumerate(vals)], capsize=3)
                ax.set_xticks(range(len(vals)))
                ax.set_xticklabels([c for c, _ in vals], rotation=30, fontsize=7, ha="right")
                ax.set_yscale("log")
                _notes(ax, notes, 0.98, "top")
            else:
                _series(ax, records, "mpi_coll", test, comps, notes, np=np)
            ax.set_title(f"MPI_{test.capitalize()}", fontsize=10)
            ax.set_ylabel("latency (us)")
        for k in range(len(coll), rows * cols):
            axes[k // cols][k % cols].axis("off")
        out.append((_save(fig, out_dir, f"mpi_coll_np{np}.png"), f"MPI collectives, {np} ranks",
                    "Latency (mean over ranks, p50 of samples) against bytes per rank/block; a collective a "
                    "library failed is listed in red with its error."))

    # 4. The path API, every provider, polling mode, with ucx_perftest's best.
    for test, name, ylabel in (("latency", "path_latency.png", "one-way latency (us)"),
                               ("bandwidth", "path_bandwidth.png", "bandwidth (MB/s)")):
        comps_path = sorted({r["component"] for r in records if r["suite"] == "path" and r["test"] == test
                             and r["component"].endswith("/polling")})
        if not comps_path:
            continue
        fig, ax = plt.subplots(figsize=(8, 4.8))
        _series(ax, records, "path", test, comps_path, [])
        best = [r for r in records if r["suite"] == "path" and r["test"] == f"ucx_perftest_best_{test}"
                and r["component"].endswith("/polling") and r["bytes"] > 0]
        for r in best:
            ax.scatter([r["bytes"]], [r["median"]], marker="*", s=90, color="black", zorder=5)
            ax.annotate(f"ucx_perftest ({r['component'].split('/')[0]})", (r["bytes"], r["median"]), fontsize=6,
                        xytext=(4, 4), textcoords="offset points")
        ax.set_ylabel(ylabel)
        ax.set_title(f"Takyon path API, every provider, polling: {test}", fontsize=10)
        out.append((_save(fig, out_dir, name), f"Path API {test}",
                    "takyon-bench over every provider (polling mode); stars: UCX's ucx_perftest over the Ucx "
                    "providers' transports, measured in turns with them."))
    return out
