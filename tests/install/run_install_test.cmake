# SPDX-License-Identifier: MIT
# Installs the current build into a scratch prefix, then builds and runs consumers of it twice:
# through find_package(Takyon) (Takyon::takyon) and through `pkg-config --cflags --libs takyon`.
# cmake -DBUILD_DIR=<takyon build> -DSOURCE_DIR=<tests/install> -DWORK_DIR=<scratch>
#       -DC_COMPILER=<cc> -DCXX_COMPILER=<c++> -DGENERATOR=<generator> [-DSANITIZE_FLAGS=<flags>]
#       -P run_install_test.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var BUILD_DIR SOURCE_DIR WORK_DIR C_COMPILER CXX_COMPILER GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_install_test.cmake needs -D${var}=...")
  endif()
endforeach()
separate_arguments(sanitize_flags UNIX_COMMAND "${SANITIZE_FLAGS}")

# step(<what> <command>...): runs the command, shows its output, stops the test if it fails.
function(step what)
  message(STATUS "install test: ${what}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${what} FAILED (${rc}):\n  ${ARGN}\n${out}")
  endif()
  if(NOT out STREQUAL "")
    message("${out}")
  endif()
endfunction()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# 1. Install, as a packager would: cmake --install <build> --prefix <dir>.
step("cmake --install into ${prefix}" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")

file(GLOB config_files "${prefix}/lib*/cmake/Takyon/TakyonConfig.cmake"
                       "${prefix}/lib/*/cmake/Takyon/TakyonConfig.cmake")
file(GLOB pc_files "${prefix}/lib*/pkgconfig/takyon.pc" "${prefix}/lib/*/pkgconfig/takyon.pc")
file(GLOB libraries "${prefix}/lib*/libtakyon.so*" "${prefix}/lib/*/libtakyon.so*"
                    "${prefix}/lib*/libtakyon.a")
foreach(header takyon.h takyon_extensions.h takyon.hpp takyon_export.h)
  if(NOT EXISTS "${prefix}/include/takyon/${header}")
    message(FATAL_ERROR "install test: ${prefix}/include/takyon/${header} was not installed")
  endif()
endforeach()
if(NOT config_files OR NOT pc_files OR NOT libraries)
  message(FATAL_ERROR "install test: missing TakyonConfig.cmake (${config_files}), takyon.pc (${pc_files}) "
                      "or libtakyon (${libraries}) under ${prefix}")
endif()
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir "${pc_file}" DIRECTORY)
get_filename_component(libdir "${pc_dir}" DIRECTORY)
message(STATUS "install test: installed ${libraries}")

# 2. A CMake project that uses find_package(Takyon) and Takyon::takyon.
set(cmake_consumer "${WORK_DIR}/cmake-consumer")
step("configure the find_package(Takyon) consumer"
     ${CMAKE_COMMAND} -S "${SOURCE_DIR}/consumer" -B "${cmake_consumer}" -G "${GENERATOR}"
     "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release
     "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
     "-DCMAKE_C_FLAGS=${SANITIZE_FLAGS}" "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}"
     "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}")
file(STRINGS "${cmake_consumer}/CMakeCache.txt" takyon_dir REGEX "^Takyon_DIR:")
string(REGEX REPLACE "^Takyon_DIR:[A-Z]+=" "" takyon_dir "${takyon_dir}")
file(REAL_PATH "${takyon_dir}" takyon_dir)
file(REAL_PATH "${prefix}" real_prefix)
string(FIND "${takyon_dir}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "install test: find_package(Takyon) found '${takyon_dir}', "
                      "not the package in ${prefix}")
endif()
step("build the find_package(Takyon) consumer" ${CMAKE_COMMAND} --build "${cmake_consumer}")
step("run the find_package(Takyon) C consumer" "${cmake_consumer}/consumer_c")
step("run the find_package(Takyon) C++ consumer" "${cmake_consumer}/consumer_cpp")

# 3. The same sources built by hand with `pkg-config --cflags --libs takyon`.
find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf)
if(NOT PKG_CONFIG_EXECUTABLE)
  message(FATAL_ERROR "install test: pkg-config not found (apt-get install pkg-config)")
endif()
set(pc_env "PKG_CONFIG_PATH=${pc_dir}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env ${pc_env} ${PKG_CONFIG_EXECUTABLE} --cflags --libs takyon
                RESULT_VARIABLE rc OUTPUT_VARIABLE pc_flags ERROR_VARIABLE pc_error
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install test: pkg-config --cflags --libs takyon failed:\n${pc_error}")
endif()
message(STATUS "install test: pkg-config --cflags --libs takyon: ${pc_flags}")
set(pc_flags_text "${pc_flags}")
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
# The flags must lead into this prefix (not to where a configure-time prefix said it would go).
file(REAL_PATH "${prefix}/include" real_include)
file(REAL_PATH "${libdir}" real_libdir)
set(include_ok FALSE)
set(lib_ok FALSE)
foreach(flag ${pc_flags})
  if(flag MATCHES "^-([IL])(.+)$")
    set(kind "${CMAKE_MATCH_1}")
    file(REAL_PATH "${CMAKE_MATCH_2}" dir)
    if(kind STREQUAL "I" AND dir STREQUAL real_include)
      set(include_ok TRUE)
    elseif(kind STREQUAL "L" AND dir STREQUAL real_libdir)
      set(lib_ok TRUE)
    endif()
  endif()
endforeach()
if(NOT include_ok OR NOT lib_ok)
  message(FATAL_ERROR "install test: takyon.pc does not point into the prefix it was installed to "
                      "(${prefix}): pkg-config says '${pc_flags_text}'. takyon.pc must be relocatable "
                      "(prefix=\${pcfiledir}/../..) so that `cmake --install --prefix <dir>` works.")
endif()
set(run_env "LD_LIBRARY_PATH=${libdir}")
step("compile the pkg-config C consumer"
     ${C_COMPILER} ${sanitize_flags} -std=c99 -Wall -Wextra -Werror -pthread
     "${SOURCE_DIR}/consumer/consumer.c"
     -o "${WORK_DIR}/pkg-config-consumer_c" ${pc_flags})
step("run the pkg-config C consumer" ${CMAKE_COMMAND} -E env ${run_env} "${WORK_DIR}/pkg-config-consumer_c")
step("compile the pkg-config C++ consumer"
     ${CXX_COMPILER} ${sanitize_flags} -std=c++20 -Wall -Wextra -Werror -pthread
     "${SOURCE_DIR}/consumer/consumer.cpp" -o "${WORK_DIR}/pkg-config-consumer_cpp" ${pc_flags})
step("run the pkg-config C++ consumer"
     ${CMAKE_COMMAND} -E env ${run_env} "${WORK_DIR}/pkg-config-consumer_cpp")

message(STATUS "install test: PASSED (find_package and pkg-config consumers built against ${prefix} and ran)")
