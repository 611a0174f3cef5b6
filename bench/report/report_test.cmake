# SPDX-License-Identifier: MIT
# bench_report: takyon-report's whole pipeline on a tiny sweep (2 repetitions, sizes up to 8 B, one
# takyon-bench provider, 2 and 4 ranks), with an Open MPI configuration that cannot work (pml
# no_such_pml) among the others. Checks: exit 0; the HTML, JSON, CSV, text, machine description,
# schema and plots exist; the JSON validates against its schema (and a broken copy does not); the
# plots are PNGs with non-trivial content; every run's OSU-format text parses; the broken component
# is reported as failed with Open MPI's reason, the others as ok; the shim's collectives are all
# measured except MPI_Allreduce, made to fail (TAKYON_MPI_COLL_ALLREDUCE=bogus) and shown as such
# with its MPI error (the unit "partial"); MPI_Barrier and
# the point-to-point records exist and were validated; the verdict covers 2 and 4 ranks and the HTML
# opens with it, ends with the machine and the commands, and shows no Python values (lists, None);
# the verdict's goals, win/loss and noisy marks on synthetic records; --compare against the first
# report adds its table. Never asserts on timings. Usage:
#   cmake -DREPORT=<takyon-report> -DOUT_DIR=<dir> [-DMPIRUN=<mpirun>] [-DHAVE_OMPI=ON] -P report_test.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT REPORT OR NOT OUT_DIR)
  message(FATAL_ERROR "usage: cmake -DREPORT=<takyon-report> -DOUT_DIR=<dir> [-DMPIRUN=<mpirun>] [-DHAVE_OMPI=ON] -P report_test.cmake")
endif()
# The plots' checker needs matplotlib: Debian's python3 first (a pyenv/venv python3 may lack it).
find_program(python NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT python)
  find_program(python NAMES python3 REQUIRED)
endif()
if(MPIRUN)
  set(mpirun_arg --mpirun ${MPIRUN})
endif()

set(dir "${OUT_DIR}/first")
file(REMOVE_RECURSE "${OUT_DIR}")
# TAKYON_MPI_COLL_ALLREDUCE=bogus makes the shim's MPI_Allreduce (only) fail with MPI_ERR_ARG: the
# report must show takyon/mpi_coll as partial with that reason while the other collectives are measured.
execute_process(COMMAND ${CMAKE_COMMAND} -E env TAKYON_MPI_COLL_ALLREDUCE=bogus
                        ${REPORT} --out-dir "${dir}" --reps 2 --p2p-sizes 0:8 --coll-sizes 1:8 --np 2,4
                        --p2p-scale 0.05 --coll-scale 0.05 --providers InterProcessMemcpy --path-sizes 0:8
                        --no-ucx-perftest --timeout 60 ${mpirun_arg} --ompi-config "broken=--mca pml no_such_pml"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("--- takyon-report\n${err}${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "takyon-report exited with ${rc}")
endif()

# 1. The files.
foreach(f IN ITEMS takyon-report.html takyon-report.json takyon-report.csv takyon-report.txt machine.txt
                   takyon-report.schema.json plots/mpi_p2p.png plots/mpi_ratio.png plots/mpi_coll_np2.png
                   plots/mpi_coll_np4.png plots/path_latency.png plots/path_bandwidth.png)
  if(NOT EXISTS "${dir}/${f}")
    message(FATAL_ERROR "missing ${dir}/${f}")
  endif()
endforeach()

# 2. The JSON validates against its schema; a copy without its records does not.
execute_process(COMMAND ${REPORT} --validate-json "${dir}/takyon-report.json" RESULT_VARIABLE rc
                OUTPUT_VARIABLE vout ERROR_VARIABLE verr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the report JSON does not validate: ${vout}${verr}")
endif()
file(READ "${dir}/takyon-report.json" json)
string(JSON broken REMOVE "${json}" records)
string(JSON broken SET "${broken}" machine cores "\"two\"")
file(WRITE "${OUT_DIR}/broken.json" "${broken}")
execute_process(COMMAND ${REPORT} --validate-json "${OUT_DIR}/broken.json" RESULT_VARIABLE rc
                OUTPUT_VARIABLE vout ERROR_VARIABLE verr)
if(rc EQUAL 0 OR NOT verr MATCHES "records" OR NOT verr MATCHES "cores")
  message(FATAL_ERROR "a JSON without records and with a string for cores validated (rc ${rc}): ${vout}${verr}")
endif()
string(JSON schema GET "${json}" schema)
if(NOT schema STREQUAL "takyon-report/1")
  message(FATAL_ERROR "schema '${schema}'")
endif()
foreach(key IN ITEMS cpu_model cores open_mpi ucx compiler date command_line)
  string(JSON value ERROR_VARIABLE e GET "${json}" machine ${key})
  if(e OR value STREQUAL "")
    message(FATAL_ERROR "machine.${key}: '${value}' ${e}")
  endif()
endforeach()

# 3. The plots: PNGs, each with a real picture (many colours, not one blank canvas).
execute_process(COMMAND ${python} -c [=[
import glob, sys
import matplotlib.image as mi
files = sorted(glob.glob(sys.argv[1] + "/plots/*.png"))
assert len(files) >= 6, files
for f in files:
    with open(f, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n", f + ": not a PNG"
    img = mi.imread(f)
    h, w = img.shape[:2]
    colours = {tuple(px) for px in img.reshape(-1, img.shape[2])[:: 7].tolist()}
    ink = (img[..., :3].sum(axis=2) < 2.9).mean()
    print(f"{f}: {w}x{h}, {len(colours)} colours, {ink:.1%} ink")
    assert w >= 400 and h >= 300 and len(colours) >= 50 and ink > 0.01, f + ": trivial picture"
]=] "${dir}" RESULT_VARIABLE rc OUTPUT_VARIABLE pout ERROR_VARIABLE perr)
message("${pout}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "plots: ${perr}")
endif()
file(READ "${dir}/takyon-report.html" html)
string(REGEX MATCHALL "src='data:image/png;base64," embedded "${html}")
list(LENGTH embedded nembedded)
if(nembedded LESS 6)
  message(FATAL_ERROR "the HTML embeds ${nembedded} plots, want 6")
endif()

# 4. Every kept run's OSU-format text parses: headers, then "size value..." rows.
file(GLOB texts "${dir}/runs/*.mpi_p2p.np*.rep*.txt" "${dir}/runs/*.mpi_coll.np*.rep*.txt")
set(parsed 0)
foreach(t IN LISTS texts)
  if(t MATCHES "ompi-broken")
    continue()
  endif()
  file(STRINGS "${t}" lines)
  set(header "")
  set(rows 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^# stderr")
      break()
    elseif(line MATCHES "^# Size +(Avg Latency\\(us\\)|Bandwidth \\(MB/s\\)|MB/s +Messages/s)")
      set(header "${CMAKE_MATCH_1}")
    elseif(NOT line MATCHES "^#")
      # (mpi_coll: size, the latencies, iterations and switches per iteration)
      if(header STREQUAL "" OR NOT line MATCHES "^[0-9]+( +[0-9]+\\.[0-9]+)+( +[0-9]+( +[0-9]+\\.[0-9]+)?)?$")
        message(FATAL_ERROR "${t}: not OSU format: '${line}' (after header '${header}')")
      endif()
      math(EXPR rows "${rows} + 1")
    endif()
  endforeach()
  if(rows EQUAL 0)
    message(FATAL_ERROR "${t}: no result rows")
  endif()
  if(t MATCHES "mpi_p2p.np2")
    foreach(h IN ITEMS "# Size          Avg Latency(us)" "# Size      Bandwidth (MB/s)" "# Size                  MB/s        Messages/s")
      if(NOT h IN_LIST lines)
        message(FATAL_ERROR "${t}: no '${h}'")
      endif()
    endforeach()
  endif()
  math(EXPR parsed "${parsed} + 1")
endforeach()
if(parsed LESS 8)
  message(FATAL_ERROR "only ${parsed} OSU texts parsed")
endif()

# 5. Units and records (in python: CMake's string(JSON) reparses the whole document per call).
execute_process(COMMAND ${python} -c [=[
import json, re, sys
doc = json.load(open(sys.argv[1] + "/takyon-report.json"))
have_ompi = sys.argv[2] in ("1", "ON", "TRUE")
html = open(sys.argv[1] + "/takyon-report.html").read()
units = {u["name"]: u for u in doc["units"]}
def fail(msg):
    sys.exit("bench_report: " + msg)
# The broken Open MPI configuration: failed, with Open MPI's reason, in the JSON and the HTML.
for suite in ("mpi_p2p", "mpi_coll"):
    for np in (2, 4):
        u = units.get(f"ompi-broken/{suite}/np{np}")
        if not u or u["status"] != "failed" or not re.search("no_such_pml|exit code|not found|not built",
                                                             u["reason"] or ""):
            fail(f"ompi-broken/{suite}/np{np}: {u and (u['status'], u['reason'])}")
        if not re.search(f"ompi-broken/{suite}/np{np}</td>[^\n]*<td class='failed'>failed</td>", html):
            fail(f"the HTML does not show ompi-broken/{suite}/np{np} as failed")
ok = ["takyon-bench/path", "takyon/mpi_p2p/np2", "takyon/mpi_p2p/np4"]
if have_ompi:
    ok += [f"{c}/{s}/np{np}" for c in ("ompi-ob1-vader", "ompi-ob1-vader-cma", "ompi-ucx", "ompi-default")
           for s in ("mpi_p2p", "mpi_coll") for np in (2, 4)]
for name in ok:
    if units.get(name, {}).get("status") != "ok":
        fail(f"{name}: {units.get(name)}")
# The shim's collectives: allreduce failed on purpose (partial, with its MPI error shown), the
# others measured and validated.
for np in (2, 4):
    u = units[f"takyon/mpi_coll/np{np}"]
    if u["status"] != "partial" or sorted(u["test_failures"]) != ["allreduce"]:
        fail(f"takyon/mpi_coll/np{np}: expected partial with allreduce failed: {u}")
    why = u["test_failures"]["allreduce"]
    if not re.match(r"MPI_Allreduce returned [0-9]+: MPI_ERR_ARG", why):
        fail(f"takyon/mpi_coll/np{np} allreduce: reason {why!r}")
if "allreduce: MPI_" not in html:
    fail("the HTML does not show why takyon's allreduce failed")
# Records: point-to-point and barrier, validated, 2 repetitions each, with ratios to Open MPI; msgrate
# and the collectives at 2 and 4 ranks.
recs = {(r["suite"], r["component"], r.get("np"), r["test"], r["bytes"]): r for r in doc["records"]}
comps = ["takyon"] + (["ompi-default", "ompi-ob1-vader"] if have_ompi else [])
for c in comps:
    for suite, np, test, nbytes in (("mpi_p2p", 2, "latency", 8), ("mpi_p2p", 2, "bandwidth", 8),
                                    ("mpi_p2p", 2, "bibw", 8), ("mpi_p2p", 2, "msgrate", 8), ("mpi_p2p", 4, "msgrate", 8),
                                    ("mpi_p2p", 2, "latency", 0), ("mpi_coll", 2, "barrier", 0),
                                    ("mpi_coll", 4, "barrier", 0)):
        r = recs.get((suite, c, np, test, nbytes))
        if not r or r["reps"] != 2 or not r["median"] > 0 or (test != "barrier" and not r["validated"]):
            fail(f"record {c} {suite} np {np} {test} {nbytes}: {r}")
coll_tests = [t for (s, c, np, t, b) in recs if s == "mpi_coll" and c == "takyon" and np == 2]
for test in ("bcast", "reduce", "gather", "scatter", "allgather", "alltoall"):
    for np in (2, 4):
        if not recs.get(("mpi_coll", "takyon", np, test, 8), {}).get("validated"):
            fail(f"no validated record takyon {test} 8 at {np} ranks")
# mpi_coll: the context switches of all ranks per iteration, a number on every record (about 0 here,
# with a core per rank; the verdict shows both sides' where ranks share cores).
for (suite, comp, np, test, nbytes), r in recs.items():
    sw = r.get("switches_per_iter") if suite == "mpi_coll" else 0
    if not isinstance(sw, (int, float)) or sw < 0:
        fail(f"record {comp} {test} {nbytes}: switches_per_iter {sw!r}")
# Every MPI record: the CPU probe (takyon-bench --cpu-probe) before each of its runs, one positive
# number per repetition; a measured verdict cell: the range of both sides' probes.
for (suite, comp, np, test, nbytes), r in recs.items():
    pr = r.get("probe_ns") if suite != "path" else [1.0] * r["reps"]
    if not isinstance(pr, list) or len(pr) != r["reps"] or not all(isinstance(x, (int, float)) and x > 0 for x in pr):
        fail(f"record {comp} {suite} {test} {nbytes}: probe_ns {pr!r}")
verdict = doc["verdict"]
for v in verdict:
    if v["status"] == "ok":
        pr = v.get("probe_ns")
        if not isinstance(pr, list) or len(pr) != 2 or not 0 < pr[0] <= pr[1]:
            fail(f"verdict {v['pattern']} np {v['np']}: probe_ns {pr!r}")
if have_ompi:
    for test in ("bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall"):
        if not recs.get(("mpi_coll", "ompi-default", 2, test, 8), {}).get("validated"):
            fail(f"no validated record ompi-default {test} 8")
    if not recs[("mpi_p2p", "takyon", 2, "latency", 8)]["ratio_to_best_ompi"]:
        fail("takyon latency 8 B has no ratio to Open MPI's best")
if ("path", "InterProcessMemcpy/polling", None, "latency", 8) not in recs:
    fail("no path API record InterProcessMemcpy/polling latency 8")
# The verdict: every pattern at 2 ranks, msgrate and every collective the program reported also at 4;
# failed allreduce says why; measured cells have a ratio, a goal, win or loss, and avg/p99 ratios.
cells = {(v["test"], v["np"], v["bytes"]): v for v in verdict}
want = [("bandwidth", 2, 8), ("bibw", 2, 8), ("latency", 2, 8), ("msgrate", 2, 8), ("msgrate", 4, 8)]
want += [(t, np, 0 if t == "barrier" else 8) for t in coll_tests for np in (2, 4)]
for k in want:
    if k not in cells:
        fail(f"verdict has no cell {k}: {sorted(cells)}")
for np in (2, 4):
    if cells.get(("allreduce", np, 8), {}).get("status") != "failed" or \
            "MPI_ERR_ARG" not in cells[("allreduce", np, 8)].get("reason", ""):
        fail(f"verdict allreduce at {np} ranks: {cells.get(('allreduce', np, 8))}")
if have_ompi:
    for k in want:
        v = cells[k]
        if k[0] != "allreduce" and (v["status"] != "ok" or v["verdict"] not in ("win", "loss") or
                                    not v["ratio"] > 0 or v.get("ratio_avg") is None or v.get("ratio_p99") is None):
            fail(f"verdict cell {k}: {v}")
# The HTML: verdict first (wins/losses marked), then the plots, the figures, and last the machine and
# the commands; no Python values anywhere in the text.
heads = re.findall(r"<h2 id='([a-z]+)'", html)
if heads[:1] != ["verdict"] or heads.index("plots") > heads.index("machine") or heads[-2:] != ["machine", "commands"]:
    fail(f"HTML sections in the wrong order: {heads}")
verdict_html = html[html.index("id='verdict'"):html.index("id='plots'")]
if have_ompi and not re.search(r"<td class='(win|loss)( noisy)?'", verdict_html):
    fail("the verdict marks no cell as win or loss")
if "4 ranks" not in verdict_html or "2 ranks" not in verdict_html:
    fail("the verdict has no table for 2 and 4 ranks")
if not re.search(r"CPU placement probe [0-9]+-[0-9]+ ns one-way", verdict_html):
    fail("the verdict does not give the range of the CPU placement probes")
text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", html)
text = re.sub(r"<[^>]+>", "\n", text)
raw = re.findall(r"\[[0-9.]+, [0-9.]+|\['|\[\]|\{'|^None$|^# Version", text, re.M)
if raw:
    fail(f"the HTML shows Python values: {raw[:5]}")
commands = html[html.index("id='commands'"):]
if "takyon-report --out-dir" not in commands or "mpi_coll --sizes" not in commands:
    fail("the HTML does not end with the report's and the units' commands")
print(f"units and records ok: {len(units)} units, {len(recs)} records")
]=] "${dir}" "${HAVE_OMPI}" RESULT_VARIABLE rc OUTPUT_VARIABLE jout ERROR_VARIABLE jerr)
message("${jout}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${jerr}")
endif()

# 6. The verdict's rules, on synthetic records through the report's own verdict(): the goal per
# pattern and size (bandwidth >= 1.1x, latency at 8 B <= 0.65x, collectives <= 0.7x to 4 KiB and
# <= 1.0x above), win or loss, noisy when either side's spread exceeds the threshold, a collective the
# report has never heard of, and sizes outside the sweep left out.
execute_process(COMMAND ${python} -c [=[
import os, sys, types
here = os.path.dirname(os.path.realpath(sys.argv[1]))
for cand in (here, os.path.join(here, "..", "libexec", "takyon", "report")):
    if os.path.isfile(os.path.join(cand, "takyon_report", "records.py")):
        sys.path.insert(0, os.path.normpath(cand))
from takyon_report import records
def rec(suite, comp, np, test, nbytes, median, noisy=False):
    unit, higher, _ = records.figure_of(suite, test)
    top = 1.2 if (comp, test, nbytes) == ("takyon", "bandwidth", 8) else 1.01  # 1.05x, up to 1.2x: uncertain
    return {"suite": suite, "component": comp, "np": np, "test": test, "bytes": nbytes, "median": median,
            "min": median * 0.99, "max": median * top,
            "unit": unit, "higher_is_better": higher, "noisy": noisy, "spread": 0.5 if noisy else 0.01,
            "avg_us": 2.0, "p50_us": 1.0, "p99_us": 3.0}
recs = []
for comp, f in (("takyon", 1.0), ("ompi-a", 1.0), ("ompi-b", 0.5)):
    recs += [rec("mpi_p2p", comp, 2, "bandwidth", 1 << 20, {"takyon": 1200, "ompi-a": 1000, "ompi-b": 900}[comp]),
             rec("mpi_p2p", comp, 2, "bandwidth", 8, {"takyon": 105, "ompi-a": 100, "ompi-b": 50}[comp]),
             rec("mpi_p2p", comp, 2, "latency", 8, {"takyon": 0.6, "ompi-a": 1.0, "ompi-b": 2.0}[comp]),
             rec("mpi_coll", comp, 4, "ireduce_scatter_block", 4096, {"takyon": 0.75, "ompi-a": 1.0, "ompi-b": 3}[comp]),
             rec("mpi_coll", comp, 4, "ireduce_scatter_block", 1 << 20, {"takyon": 95, "ompi-a": 100, "ompi-b": 300}[comp],
                 noisy=comp == "ompi-b"),
             rec("mpi_coll", comp, 2, "barrier", 0, {"takyon": 0.5, "ompi-a": 1.0, "ompi-b": 1.0}[comp], noisy=comp == "ompi-a")]
records.add_ratios(recs)
args = types.SimpleNamespace(suites=["mpi_p2p", "mpi_coll"], p2p_tests=["bandwidth", "latency"], np=[2, 4],
                             p2p_sizes=(0, 1 << 20), coll_sizes=(1, 1 << 20), mpi_components=[("ompi-a",), ("ompi-b",)])
rows = records.verdict(recs, [], args)
got = {(r["test"], r["np"], r["bytes"]): (r["status"], r.get("verdict"), r.get("noisy"), r["goal_op"], r["goal"],
                                          round(r.get("ratio") or 0, 3)) for r in rows}
want = {("bandwidth", 2, 1 << 20): ("ok", "win", False, ">=", 1.1, 1.2),
        ("bandwidth", 2, 8): ("ok", "loss", False, ">=", 1.1, 1.05),
        ("latency", 2, 8): ("ok", "win", False, "<=", 0.65, 0.6),
        ("ireduce_scatter_block", 4, 4096): ("ok", "loss", False, "<=", 0.7, 0.75),
        ("ireduce_scatter_block", 4, 1 << 20): ("ok", "win", False, "<=", 1.0, 0.95),
        ("barrier", 2, 0): ("ok", "win", True, "<=", 0.7, 0.5)}
for k, v in want.items():
    if got.get(k) != v:
        sys.exit(f"verdict {k}: {got.get(k)}, want {v}")
for k in got:  # every other cell: not measured, and says why; no size above the sweep
    if k not in want and (got[k][0] != "n/a" or k[2] > 1 << 20):
        sys.exit(f"verdict {k}: {got[k]}, want n/a within the sweep")
if ("bandwidth", 2, 4 << 20) in got or ("bandwidth", 2, 256 << 10) not in got:
    sys.exit(f"verdict sizes: {sorted(got)}")
if ("ireduce_scatter_block", 2, 4096) not in got or ("latency", 2, 4096) in got:
    sys.exit(f"verdict patterns: {sorted(got)}")
r = next(r for r in rows if r["test"] == "bandwidth" and r["bytes"] == 8)
if r["against"] != "ompi-a" or abs(r["ratio_avg"] - 1.0) > 1e-9 or abs(r["ratio_p99"] - 1.0) > 1e-9:
    sys.exit(f"verdict against the best configuration, avg/p99 ratios: {r}")
if [(r["test"], r["bytes"]) for r in rows if r.get("uncertain")] != [("bandwidth", 8)]:
    sys.exit(f"uncertain cells: {[(r['test'], r['bytes'], r.get('ratio_range')) for r in rows if r.get('uncertain')]}")
c = records.verdict_counts(rows)
if (c["win"], c["loss"], c["noisy"], c["uncertain"]) != (4, 2, 1, 1):
    sys.exit(f"verdict counts {c}")
grid = records.verdict_grid(rows)
if [np for np, _ in grid] != [2, 4] or records.verdict_cell_text(r) != "1.05x LOSS?":
    sys.exit(f"verdict grid: {[(np, [p[0] for p in pats]) for np, pats in grid]}")
from takyon_report import util
notes = [util.placement_note({"probe_ns": p}) for p in ([40.0, 59.0], [40.0, 60.0], [38.5, 223.0])]
if notes[0] != "" or "40-60 ns" not in notes[1] or "CPUs moved" not in notes[2] or util.placement_note({}) != "":
    sys.exit(f"placement notes: {notes}")
print("verdict rules and placement notes ok")
]=] "${REPORT}" RESULT_VARIABLE rc OUTPUT_VARIABLE hout ERROR_VARIABLE herr)
message("${hout}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${herr}")
endif()

# 7. --compare: a second, smaller report against the first has the comparison.
execute_process(COMMAND ${REPORT} --out-dir "${OUT_DIR}/second" --reps 1 --no-path --suites mpi_p2p --configs takyon
                        --p2p-sizes 0:8 --p2p-scale 0.05 --p2p-tests latency --timeout 60
                        --compare "${dir}/takyon-report.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("--- takyon-report --compare\n${err}${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "compared with the report of [^\n]*: 5 figures in both")
  message(FATAL_ERROR "--compare: exit ${rc}, or no comparison of the 5 latency figures")
endif()
file(READ "${OUT_DIR}/second/takyon-report.json" json2)
string(JSON ncmp LENGTH "${json2}" compare rows)
if(NOT ncmp EQUAL 5)
  message(FATAL_ERROR "compare has ${ncmp} rows, want 5")
endif()
message("bench_report: ok")
