# SPDX-License-Identifier: MIT
# takyon-info lists every provider of the table and every knob of the registry, shows a value taken
# from the environment, and --check refuses (exit 1, naming the variable) a knob set to a bad value.
#   cmake -DINFO=<takyon-info> -P takyon_info_test.cmake
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${CMAKE_COMMAND} -E env TAKYON_MPI_SPIN_US=77 "${INFO}" -a
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "takyon-info -a failed (${rc}): ${err}")
endif()
execute_process(COMMAND "${INFO}" --knobs-markdown OUTPUT_VARIABLE md RESULT_VARIABLE rc)
string(REGEX MATCHALL "\\| `[A-Z_]+`" rows "${md}")
list(LENGTH rows nknobs)
if(nknobs LESS 40)
  message(FATAL_ERROR "takyon-info --knobs-markdown lists only ${nknobs} knobs")
endif()
foreach(row IN LISTS rows)
  string(REGEX REPLACE "^\\| `([A-Z_]+)`$" "\\1" name "${row}")
  if(NOT out MATCHES "  ${name} = ")
    message(FATAL_ERROR "takyon-info does not show knob ${name}:\n${out}")
  endif()
endforeach()
foreach(provider InterThreadMemcpy InterThreadPointer InterProcessMemcpy InterProcessPointer InterProcessSocket
                 Socket UnicastSendSocket UnicastRecvSocket MulticastSendSocket MulticastRecvSocket Ucx)
  if(NOT out MATCHES "\n  ${provider} ")
    message(FATAL_ERROR "takyon-info does not list provider ${provider}:\n${out}")
  endif()
endforeach()
foreach(expected "TAKYON_MPI_SPIN_US = 77  \\[from the environment\\]" "why: " "MPI library: +Takyon MPI")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "takyon-info's output lacks '${expected}':\n${out}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E env TAKYON_MPI_COLL_BCAST=tree TAKYON_MPI_CMA_MAX=lots "${INFO}" --check
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT err MATCHES "TAKYON_MPI_COLL_BCAST='tree' is not one of auto,binomial"
   OR NOT err MATCHES "TAKYON_MPI_CMA_MAX='lots' is not a size in bytes")
  message(FATAL_ERROR "takyon-info --check with two bad knobs: exit ${rc}\n${out}${err}")
endif()
execute_process(COMMAND "${INFO}" --check RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "takyon-info --check fails in a clean environment (${rc}): ${err}")
endif()
message(STATUS "takyon-info: ${nknobs} knobs and every provider listed; bad values refused")
