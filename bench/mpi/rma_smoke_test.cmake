# SPDX-License-Identifier: MIT
# bench_smoke_mpi_rma: a short run of mpi_rma (every test, 8 B .. 1 KiB, --scale 0.01) built with Open
# MPI's mpicc under mpirun in two one-sided configurations (osc sm over MPI_Win_allocate, osc pt2pt
# over MPI_Win_create), and the libtakyon_mpi build under takyon-run in both flavors. Each run must
# exit 0, print no "# FAILED" test, and write a CSV line with validated checks for every test and
# size. Never asserts on timings. Usage:
#   cmake -DPROG_DIR=<libexec/takyon/bench-mpi> -DOUT_DIR=<dir> [-DMPIRUN=<mpirun>] [-DTAKYON_RUN=<takyon-run>]
#         [-DHAVE_OMPI=ON] -P rma_smoke_test.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT PROG_DIR OR NOT OUT_DIR)
  message(FATAL_ERROR "usage: cmake -DPROG_DIR=<dir> -DOUT_DIR=<dir> [-DMPIRUN=..] [-DTAKYON_RUN=..] -P rma_smoke_test.cmake")
endif()
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
set(tests put_latency get_latency put_bw get_bw put_bibw acc_latency fetch_and_op compare_and_swap fence pscw)
set(args --sizes 8:1K --scale 0.01 --window 8)

# check_run(<name> <command>...): runs it, checks exit code, output and CSV.
function(check_run name)
  set(csv "${OUT_DIR}/${name}.csv")
  execute_process(COMMAND ${ARGN} ${args} --label ${name} --csv ${csv} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 120)
  message("--- ${name}: ${ARGN}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: exit code ${rc}")
  endif()
  if(out MATCHES "# FAILED" OR NOT out MATCHES "# validated: [1-9][0-9]* checks, 0 errors")
    message(FATAL_ERROR "${name}: a test failed or nothing was validated")
  endif()
  file(STRINGS "${csv}" lines)
  foreach(t IN LISTS tests)
    set(sizes 8)
    if(t MATCHES "^(put|get|acc)_")
      set(sizes 8 16 32 64 128 256 512 1024)
    endif()
    foreach(b IN LISTS sizes)
      set(found "")
      foreach(line IN LISTS lines)
        if(line MATCHES "^${name},${t},${b},.*,([0-9]+)$" AND CMAKE_MATCH_1 GREATER 0)
          set(found 1)
        endif()
      endforeach()
      if(NOT found)
        message(FATAL_ERROR "${name}: no CSV line with validated checks for ${t} ${b} B")
      endif()
    endforeach()
  endforeach()
endfunction()

set(root "")
execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
if(uid STREQUAL "0")
  set(root --allow-run-as-root)
endif()
if(HAVE_OMPI)
  check_run(ompi-osc-sm ${MPIRUN} ${root} --oversubscribe -np 2 --mca osc sm ${PROG_DIR}/ompi/mpi_rma)
  check_run(ompi-osc-pt2pt ${MPIRUN} ${root} --oversubscribe -np 2 --mca osc pt2pt ${PROG_DIR}/ompi/mpi_rma --flavor create)
endif()
# The Takyon build over an allocated window (operations on mapped memory) and over MPI_Win_create
# (operations as messages the target runs).
check_run(takyon ${TAKYON_RUN} -n 2 ${PROG_DIR}/takyon/mpi_rma)
check_run(takyon-create ${TAKYON_RUN} -n 2 ${PROG_DIR}/takyon/mpi_rma --flavor create)
message(STATUS "bench_smoke_mpi_rma: passed")
