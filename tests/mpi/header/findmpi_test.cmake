# SPDX-License-Identifier: MIT
# cmake -DWRAPPER_CC=... -DWRAPPER_CXX=... -DCC=... -DCXX=... -DEXPECT_INCLUDE_DIR=... -DHELLO_DIR=...
#       -DWORK_DIR=... -P findmpi_test.cmake
# Configures and builds the findmpi/ consumer project in a fresh directory: FindMPI must find Takyon's
# MPI through the wrappers, and MPI::MPI_C / MPI::MPI_CXX must compile and link the hello programs.
foreach(var WRAPPER_CC WRAPPER_CXX CC CXX EXPECT_INCLUDE_DIR HELLO_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "findmpi_test.cmake: -D${var}=... is required")
  endif()
endforeach()
get_filename_component(here "${CMAKE_CURRENT_LIST_FILE}" DIRECTORY)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# The environment's MPI variables must not steer FindMPI elsewhere.
foreach(var MPI_HOME MPICC MPICXX OMPI_CC OMPI_CXX)
  unset(ENV{${var}})
endforeach()

execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${here}/findmpi -B ${WORK_DIR} -DCMAKE_BUILD_TYPE=Release
          -DCMAKE_C_COMPILER=${CC} -DCMAKE_CXX_COMPILER=${CXX}
          -DMPI_C_COMPILER=${WRAPPER_CC} -DMPI_CXX_COMPILER=${WRAPPER_CXX} -DMPI_SKIP_COMPILER_WRAPPER=OFF
          -DEXPECT_INCLUDE_DIR=${EXPECT_INCLUDE_DIR} -DHELLO_DIR=${HELLO_DIR}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the FindMPI consumer failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the FindMPI consumer failed (${rc})")
endif()
foreach(app app_c app_cxx)
  if(NOT EXISTS ${WORK_DIR}/${app})
    message(FATAL_ERROR "${WORK_DIR}/${app} was not built")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "FindMPI found Takyon's MPI through the wrappers and built both programs")
