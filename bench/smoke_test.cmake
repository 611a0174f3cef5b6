# SPDX-License-Identifier: MIT
# bench_smoke: runs `takyon-bench --provider all --quick --out-dir OUT_DIR` and checks that the
# CSV and JSON exist, parse and agree, and that every provider -- shared memory and sockets,
# connected and connectionless, and the Ucx configurations if UCX=ON -- has its records.
# With VS_UCX_PERFTEST=ON (bench_smoke_vs_ucx_perftest) it runs the Ucx configurations with
# --vs-ucx-perftest in polling mode instead and checks that every ucx_perftest run parsed into records
# and that the comparison targets were evaluated. Never asserts on timings. Usage:
#   cmake -DBENCH=<takyon-bench> -DOUT_DIR=<dir> [-DUCX=ON] [-DVS_UCX_PERFTEST=ON] -P smoke_test.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT BENCH OR NOT OUT_DIR)
  message(FATAL_ERROR "usage: cmake -DBENCH=<takyon-bench> -DOUT_DIR=<dir> [-DUCX=ON] [-DVS_UCX_PERFTEST=ON] -P smoke_test.cmake")
endif()

set(ucx_providers UcxTcp UcxShm UcxShmAm)
if(VS_UCX_PERFTEST)
  if(DEFINED ENV{TAKYON_BENCH_UCX_PERFTEST} AND NOT "$ENV{TAKYON_BENCH_UCX_PERFTEST}" STREQUAL "")
    set(perftest "$ENV{TAKYON_BENCH_UCX_PERFTEST}")
  else()
    find_program(perftest ucx_perftest)
  endif()
  if(NOT perftest)
    # ctest's SKIP_REGULAR_EXPRESSION turns this into a skip, never a pass.
    message("bench_smoke: SKIPPED: no ucx_perftest on PATH (apt-get install ucx-utils)")
    return()
  endif()
  list(JOIN ucx_providers "," provider_list)
  # --quick: ~4 ms per ucx_perftest run and two runs per test; no 4 MiB size (nothing to compare there);
  # polling only: the comparison targets are polling mode's, and ucx_perftest has no event mode (an
  # event-driven run would repeat the same ucx_perftest runs; bench_smoke covers the event mode).
  set(bench_args --provider ${provider_list} --quick --max-bytes 1M --vs-ucx-perftest --mode polling)
  set(modes polling)
else()
  set(bench_args --provider all --quick)
  set(modes polling event)
endif()

file(REMOVE_RECURSE "${OUT_DIR}")
execute_process(COMMAND "${BENCH}" ${bench_args} --out-dir "${OUT_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "takyon-bench exited with ${rc}:\n${err}")
endif()

set(csv_file "${OUT_DIR}/takyon-bench.csv")
set(json_file "${OUT_DIR}/takyon-bench.json")
foreach(f IN ITEMS "${csv_file}" "${json_file}")
  if(NOT EXISTS "${f}")
    message(FATAL_ERROR "missing ${f}")
  endif()
endforeach()

# JSON: parses, has the machine info, and every record has the documented fields.
file(READ "${json_file}" json)
foreach(key IN ITEMS cpu_model cores date command_line git_describe)
  string(JSON value ERROR_VARIABLE json_error GET "${json}" machine ${key})
  if(json_error)
    message(FATAL_ERROR "JSON machine.${key}: ${json_error}")
  endif()
endforeach()
string(JSON record_count ERROR_VARIABLE json_error LENGTH "${json}" records)
if(json_error OR record_count EQUAL 0)
  message(FATAL_ERROR "JSON has no records (${json_error})")
endif()
string(JSON error_count LENGTH "${json}" errors)
if(NOT error_count EQUAL 0)
  message(FATAL_ERROR "JSON lists ${error_count} failed run(s)")
endif()
math(EXPR last "${record_count} - 1")
# Each record is taken out of the document once and read from there: string(JSON) parses the text it
# is given on every call, and reading the fields from the whole document was far too slow.
set(seen "")
set(lost_seen FALSE)
foreach(i RANGE ${last})
  string(JSON record GET "${json}" records ${i})
  # Each field into the variable of its name (provider, mode, test, p50, iterations are used below).
  foreach(key IN ITEMS provider mode test bytes p50 p99 min mean ratio_to_floor iterations)
    string(JSON ${key} ERROR_VARIABLE json_error GET "${record}" ${key})
    if(json_error)
      message(FATAL_ERROR "JSON record ${i} lacks ${key}: ${json_error}")
    endif()
  endforeach()
  if(NOT p50 MATCHES "^[0-9.e+-]+$" OR iterations EQUAL 0)
    message(FATAL_ERROR "JSON record ${i} (${provider} ${mode} ${test}): p50 '${p50}', iterations ${iterations}")
  endif()
  list(APPEND seen "${provider}/${mode}/${test}")
  # UCX's best of the ucx_perftest runs names the run it came from.
  if(test MATCHES "^ucx_perftest_best_")
    string(JSON from ERROR_VARIABLE json_error GET "${record}" from)
    if(json_error OR NOT from MATCHES "^ucx_perftest_(tcp|sysv|posix)_(ucp_put|tag)_(lat|bw)$")
      message(FATAL_ERROR
              "JSON record ${i} (${test}) does not name the run it came from: '${from}' ${json_error}")
    endif()
  endif()
  # The connectionless streams report their losses.
  if(provider STREQUAL "Unicast" AND test STREQUAL "bandwidth")
    string(JSON lost ERROR_VARIABLE json_error GET "${record}" lost)
    if(json_error OR NOT lost MATCHES "^-?[0-9]+$")
      message(FATAL_ERROR "JSON record ${i} (Unicast bandwidth) has no loss count: ${json_error}")
    endif()
    set(lost_seen TRUE)
  endif()
endforeach()
# Shared-memory providers with their floors; socket providers (a connected pair over a Unix socket
# and over TCP, and the connectionless UDP pairs) with their plain socket baselines; Ucx over TCP
# with plain TCP, over shared memory with the floors.
set(ucx_expected
    "UcxTcp|latency bandwidth plain_tcp_latency plain_tcp_bandwidth"
    "UcxShm|latency bandwidth floor_cacheline floor_memcpy"
    "UcxShmAm|latency bandwidth floor_cacheline floor_memcpy")
if(VS_UCX_PERFTEST)
  # Every ucx_perftest test over every transport of each configuration, and UCX's best.
  set(expected "")
  foreach(entry IN LISTS ucx_expected)
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 provider)
    list(GET parts 1 tests)
    if(provider STREQUAL "UcxTcp")
      set(transports tcp)
    else()
      set(transports sysv posix)
    endif()
    foreach(tls IN LISTS transports)
      foreach(test IN ITEMS ucp_put_lat tag_lat ucp_am_lat ucp_put_bw tag_bw ucp_am_bw)
        string(APPEND tests " ucx_perftest_${tls}_${test}")
      endforeach()
    endforeach()
    # The started one-sided writes, at the compared sizes.
    list(APPEND expected
         "${provider}|${tests} ucx_perftest_best_latency ucx_perftest_best_bandwidth write_bandwidth")
  endforeach()
else()
  set(expected
      "InterThreadMemcpy|latency bandwidth floor_cacheline floor_memcpy"
      "InterThreadPointer|latency bandwidth floor_cacheline floor_memcpy"
      "InterProcessMemcpy|latency bandwidth floor_cacheline floor_memcpy"
      "InterProcessPointer|latency bandwidth floor_cacheline floor_memcpy"
      "InterProcessSocket|latency bandwidth plain_unix_latency plain_unix_bandwidth"
      "Socket|latency bandwidth plain_tcp_latency plain_tcp_bandwidth"
      "Unicast|latency bandwidth plain_udp_latency plain_udp_bandwidth"
      "Multicast|latency bandwidth plain_udp_latency plain_udp_bandwidth")
  if(UCX)
    list(APPEND expected ${ucx_expected})
  endif()
endif()
# The one-sided ping-pongs: 8 B, polling, on the shared-memory providers' tables.
if(NOT VS_UCX_PERFTEST AND "polling" IN_LIST modes)
  foreach(entry IN ITEMS "InterThreadMemcpy|write_latency piggyback_latency"
                         "InterProcessPointer|write_latency piggyback_latency")
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 provider)
    list(GET parts 1 tests)
    string(REPLACE " " ";" tests "${tests}")
    foreach(test IN LISTS tests)
      if(NOT "${provider}/polling/${test}" IN_LIST seen)
        message(FATAL_ERROR "JSON has no ${test} records for ${provider} polling")
      endif()
    endforeach()
  endforeach()
endif()
foreach(entry IN LISTS expected)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 provider)
  list(GET parts 1 tests)
  string(REPLACE " " ";" tests "${tests}")
  foreach(mode IN LISTS modes)
    foreach(test IN LISTS tests)
      if(NOT "${provider}/${mode}/${test}" IN_LIST seen)
        message(FATAL_ERROR "JSON has no ${test} records for ${provider} ${mode}")
      endif()
    endforeach()
  endforeach()
endforeach()
if(VS_UCX_PERFTEST)
  # The comparison targets were evaluated (PASS or MISS: both mean every figure parsed), and each
  # best names the run it came from.
  string(JSON target_count LENGTH "${json}" targets)
  set(ucx_targets "")
  if(target_count GREATER 0)
    math(EXPR last_target "${target_count} - 1")
    foreach(i RANGE ${last_target})
      string(JSON id GET "${json}" targets ${i} id)
      string(JSON provider GET "${json}" targets ${i} provider)
      string(JSON result GET "${json}" targets ${i} result)
      if(id MATCHES "^ucx_")
        if(NOT result MATCHES "^(PASS|MISS)$")
          string(JSON description GET "${json}" targets ${i} description)
          message(FATAL_ERROR "target ${id} of ${provider} is ${result}: ${description}")
        endif()
        list(APPEND ucx_targets "${provider}/${id}")
      endif()
    endforeach()
  endif()
  foreach(provider IN ITEMS UcxTcp UcxShm)
    foreach(id IN ITEMS ucx_latency_vs_perftest ucx_bandwidth_vs_perftest ucx_write_bandwidth_vs_put_bw)
      if(NOT "${provider}/${id}" IN_LIST ucx_targets)
        message(FATAL_ERROR "JSON has no ${id} target for ${provider}")
      endif()
    endforeach()
  endforeach()
  string(JSON perftest_info GET "${json}" config ucx_perftest)
  if(NOT perftest_info MATCHES "ucx_perftest")
    message(FATAL_ERROR "JSON config.ucx_perftest is '${perftest_info}'")
  endif()
  message(STATUS "bench_smoke: ${record_count} records with ucx_perftest, targets ${ucx_targets}")
endif()

if(VS_UCX_PERFTEST)
  set(lost_seen TRUE)  # no connectionless provider in this run
endif()
if(NOT lost_seen)
  message(FATAL_ERROR "JSON has no Unicast bandwidth record")
endif()
string(JSON target_count LENGTH "${json}" targets)
if(target_count EQUAL 0)
  message(FATAL_ERROR "JSON has no targets")
endif()

# CSV: the header, then one line per JSON record, each with as many fields as the header.
file(STRINGS "${csv_file}" csv_lines)
list(LENGTH csv_lines line_count)
list(GET csv_lines 0 header)
if(NOT header MATCHES "^provider,mode,test,bytes,p50_us,p99_us,min_us,mean_us,ratio_to_floor,iterations,bandwidth_MBps,window,lost$")
  message(FATAL_ERROR "unexpected CSV header: ${header}")
endif()
math(EXPR csv_records "${line_count} - 1")
if(NOT csv_records EQUAL record_count)
  message(FATAL_ERROR "CSV has ${csv_records} records, JSON ${record_count}")
endif()
string(REPLACE "," ";" header_fields "${header}")
list(LENGTH header_fields field_count)
foreach(i RANGE 1 ${csv_records})
  list(GET csv_lines ${i} line)
  # Empty fields survive a list conversion only if they are made non-empty first.
  string(REPLACE "," ";x" fields "x${line}")
  list(LENGTH fields n)
  if(NOT n EQUAL field_count)
    message(FATAL_ERROR "CSV line ${i} has ${n} fields, header ${field_count}: ${line}")
  endif()
  list(GET fields 4 p50)
  if(NOT p50 MATCHES "^x[0-9.e+-]+$")
    message(FATAL_ERROR "CSV line ${i}: p50_us '${p50}' is not a number")
  endif()
endforeach()
message(STATUS "bench_smoke: ${record_count} records, ${target_count} targets, CSV and JSON agree")
