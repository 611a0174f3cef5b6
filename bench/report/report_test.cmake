# SPDX-License-Identifier: MIT
# bench_report: takyon-report's whole pipeline on a tiny sweep (2 repetitions, sizes up to 8 B, one
# takyon-bench provider, 2 ranks), with an Open MPI configuration that cannot work (pml
# no_such_pml) among the others. Checks: exit 0; the HTML, JSON, CSV, text, machine description,
# schema and plots exist; the JSON validates against its schema (and a broken copy does not); the
# plots are PNGs with non-trivial content; every run's OSU-format text parses; the broken component
# is reported as failed with Open MPI's reason, the others as ok; the shim's collectives are all
# measured except MPI_Allreduce, made to fail (TAKYON_MPI_COLL_ALLREDUCE=bogus) and shown as such
# with its MPI error (the unit "partial"); MPI_Barrier and
# the point-to-point records exist and were validated; --compare against the first report adds its
# table. Never asserts on timings. Usage:
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
                        ${REPORT} --out-dir "${dir}" --reps 2 --p2p-sizes 0:8 --coll-sizes 1:8 --coll-np 2
                        --p2p-scale 0.05 --coll-scale 0.05 --providers InterProcessMemcpy --path-sizes 0:8
                        --no-ucx-perftest --timeout 60 ${mpirun_arg} --ompi-config "broken=--mca pml no_such_pml"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("--- takyon-report\n${err}${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "takyon-report exited with ${rc}")
endif()

# 1. The files.
foreach(f IN ITEMS takyon-report.html takyon-report.json takyon-report.csv takyon-report.txt machine.txt
                   takyon-report.schema.json plots/mpi_p2p.png plots/mpi_ratio.png plots/mpi_coll.png
                   plots/path_latency.png plots/path_bandwidth.png)
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
assert len(files) >= 5, files
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
if(nembedded LESS 5)
  message(FATAL_ERROR "the HTML embeds ${nembedded} plots, want 5")
endif()

# 4. Every kept run's OSU-format text parses: headers, then "size value..." rows.
file(GLOB texts "${dir}/runs/*.mpi_p2p.rep*.txt" "${dir}/runs/*.mpi_coll.rep*.txt")
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
  if(t MATCHES "mpi_p2p")
    foreach(h IN ITEMS "# Size          Avg Latency(us)" "# Size      Bandwidth (MB/s)" "# Size                  MB/s        Messages/s")
      if(NOT h IN_LIST lines)
        message(FATAL_ERROR "${t}: no '${h}'")
      endif()
    endforeach()
  endif()
  math(EXPR parsed "${parsed} + 1")
endforeach()
if(parsed LESS 4)
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
    u = units.get("ompi-broken/" + suite)
    if not u or u["status"] != "failed" or not re.search("no_such_pml|exit code|not found|not built", u["reason"] or ""):
        fail(f"ompi-broken/{suite}: {u and (u['status'], u['reason'])}")
    if not re.search(f"ompi-broken/{suite}</td>[^\n]*<td class='failed'>failed</td>", html):
        fail(f"the HTML does not show ompi-broken/{suite} as failed")
ok = ["takyon-bench/path", "takyon/mpi_p2p"]
if have_ompi:
    ok += [f"{c}/{s}" for c in ("ompi-ob1-vader", "ompi-ob1-vader-cma", "ompi-ucx", "ompi-default")
           for s in ("mpi_p2p", "mpi_coll")]
for name in ok:
    if units.get(name, {}).get("status") != "ok":
        fail(f"{name}: {units.get(name)}")
# The shim's collectives: allreduce failed on purpose (partial, with its MPI error shown), the
# other seven measured and validated.
u = units["takyon/mpi_coll"]
if u["status"] != "partial" or sorted(u["test_failures"]) != ["allreduce"]:
    fail(f"takyon/mpi_coll: expected partial with allreduce failed: {u}")
why = u["test_failures"]["allreduce"]
if not re.match(r"MPI_Allreduce returned [0-9]+: MPI_ERR_ARG", why):
    fail(f"takyon/mpi_coll allreduce: reason {why!r}")
if "allreduce: MPI_" not in html:
    fail("the HTML does not show why takyon's allreduce failed")
# Records: point-to-point and barrier, validated, 2 repetitions each, with ratios to Open MPI.
recs = {(r["suite"], r["component"], r["test"], r["bytes"]): r for r in doc["records"]}
comps = ["takyon"] + (["ompi-default", "ompi-ob1-vader"] if have_ompi else [])
for c in comps:
    for suite, test, nbytes in (("mpi_p2p", "latency", 8), ("mpi_p2p", "bandwidth", 8), ("mpi_p2p", "bibw", 8),
                                ("mpi_p2p", "msgrate", 8), ("mpi_p2p", "latency", 0), ("mpi_coll", "barrier", 0)):
        r = recs.get((suite, c, test, nbytes))
        if not r or r["reps"] != 2 or not r["median"] > 0 or (test != "barrier" and not r["validated"]):
            fail(f"record {c} {suite} {test} {nbytes}: {r}")
for test in ("bcast", "reduce", "gather", "scatter", "allgather", "alltoall"):
    if not recs.get(("mpi_coll", "takyon", test, 8), {}).get("validated"):
        fail(f"no validated record takyon {test} 8")
# mpi_coll: the context switches of all ranks per iteration, a number on every record (about 0 here,
# with a core per rank; the headlines show both sides' where ranks share cores).
for (suite, comp, test, nbytes), r in recs.items():
    sw = r.get("switches_per_iter") if suite == "mpi_coll" else 0
    if not isinstance(sw, (int, float)) or sw < 0:
        fail(f"record {comp} {test} {nbytes}: switches_per_iter {sw!r}")
# Every MPI record: the CPU probe (takyon-bench --cpu-probe) before each of its runs, one positive
# number per repetition; an ok MPI headline: the range of both sides' probes.
for (suite, comp, test, nbytes), r in recs.items():
    pr = r.get("probe_ns") if suite != "path" else [1.0] * r["reps"]
    if not isinstance(pr, list) or len(pr) != r["reps"] or not all(isinstance(x, (int, float)) and x > 0 for x in pr):
        fail(f"record {comp} {suite} {test} {nbytes}: probe_ns {pr!r}")
for h in doc["headlines"]:
    if h["status"] == "ok" and h["suite"] != "path":
        pr = h.get("probe_ns")
        if not isinstance(pr, list) or len(pr) != 2 or not 0 < pr[0] <= pr[1]:
            fail(f"headline {h['what']}: probe_ns {pr!r}")
if have_ompi:
    for test in ("bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall"):
        if not recs.get(("mpi_coll", "ompi-default", test, 8), {}).get("validated"):
            fail(f"no validated record ompi-default {test} 8")
    if not recs[("mpi_p2p", "takyon", "latency", 8)]["ratio_to_best_ompi"]:
        fail("takyon latency 8 B has no ratio to Open MPI's best")
if ("path", "InterProcessMemcpy/polling", "latency", 8) not in recs:
    fail("no path API record InterProcessMemcpy/polling latency 8")
if len(doc["headlines"]) < 5 or not any(h["status"] == "ok" for h in doc["headlines"]):
    fail(f"headlines: {doc['headlines']}")
print(f"units and records ok: {len(units)} units, {len(recs)} records")
]=] "${dir}" "${HAVE_OMPI}" RESULT_VARIABLE rc OUTPUT_VARIABLE jout ERROR_VARIABLE jerr)
message("${jout}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${jerr}")
endif()

# 8. A collective's headline sizes: 8 B and 1 MiB, or the largest size swept when that is less (np 4
# sweeps to 64 KiB on two cores); synthetic records through the report's own headlines().
execute_process(COMMAND ${python} -c [=[
import os, sys, types
here = os.path.dirname(os.path.realpath(sys.argv[1]))
for cand in (here, os.path.join(here, "..", "libexec", "takyon", "report")):
    if os.path.isfile(os.path.join(cand, "takyon_report", "records.py")):
        sys.path.insert(0, os.path.normpath(cand))
from takyon_report import records
recs = [{"suite": "mpi_coll", "component": c, "test": "bcast", "bytes": b, "median": m, "noisy": False,
         "higher_is_better": False} for c, m in (("takyon", 1.0), ("ompi-x", 2.0)) for b in (8, 65536)]
records.add_ratios(recs)
def rows(top):
    args = types.SimpleNamespace(suites=["mpi_coll"], coll_tests=["bcast"], coll_np=4, coll_sizes=(1, top),
                                 p2p_tests=[])
    return [(h["what"], h["status"]) for h in records.headlines(recs, [], args)]
want = {65536: [("MPI_Bcast 8 B, 4 ranks", "ok"), ("MPI_Bcast 64 KiB, 4 ranks", "ok")],
        8: [("MPI_Bcast 8 B, 4 ranks", "ok"), ("MPI_Bcast 1 MiB, 4 ranks", "n/a")],
        1 << 22: [("MPI_Bcast 8 B, 4 ranks", "ok"), ("MPI_Bcast 1 MiB, 4 ranks", "n/a")]}
for top, expect in want.items():
    got = rows(top)
    if got != expect:
        sys.exit(f"headlines for sizes up to {top}: {got}, want {expect}")
from takyon_report import util
notes = [util.placement_note({"probe_ns": p}) for p in ([40.0, 59.0], [40.0, 60.0], [38.5, 223.0])]
if notes[0] != "" or "40-60 ns" not in notes[1] or "CPUs moved" not in notes[2] or util.placement_note({}) != "":
    sys.exit(f"placement notes: {notes}")
print("headline sizes and placement notes ok")
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
