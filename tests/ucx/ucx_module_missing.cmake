# SPDX-License-Identifier: MIT
# Runs ucx_module_probe's "missing" mode against a copy of libtakyon that has no Ucx module beside it.
#   cmake -DPROBE=<ucx_module_probe> -DLIBRARY=<libtakyon.so> -DWORK_DIR=<scratch> -P ucx_module_missing.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(REAL_PATH "${LIBRARY}" real_library)
# The probe asks for the soname (libtakyon.so.0); give the copy that name.
execute_process(COMMAND readelf -d "${real_library}" OUTPUT_VARIABLE dynamic)
string(REGEX MATCH "Library soname: \\[([^]]+)\\]" _ "${dynamic}")
set(soname "${CMAKE_MATCH_1}")
if(soname STREQUAL "")
  message(FATAL_ERROR "no soname in ${real_library}")
endif()
file(COPY_FILE "${real_library}" "${WORK_DIR}/${soname}")
if(EXISTS "${WORK_DIR}/takyon")
  message(FATAL_ERROR "${WORK_DIR}/takyon exists")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${WORK_DIR}" "${PROBE}" missing pid
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ucx_module_probe missing: exit ${rc}")
endif()
# The error names the module where this copy looked for it.
if(NOT out MATCHES "cannot load ${WORK_DIR}/takyon/libtakyon_ucx.so")
  message(FATAL_ERROR "the error does not name ${WORK_DIR}/takyon/libtakyon_ucx.so")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
