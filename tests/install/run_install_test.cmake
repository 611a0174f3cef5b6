# SPDX-License-Identifier: MIT
# Installs the current build into a scratch prefix, moves the prefix elsewhere, and then uses it as a
# new user would, with LD_LIBRARY_PATH unset throughout (only RUNPATHs and the .pc file may lead to
# the libraries):
#   1. every installed program and library finds its dependencies (ldd: nothing "not found");
#   2. find_package(Takyon) consumers in C and C++;
#   3. pkg-config consumers in C and C++, and guide-style C code (#include "takyon.h" with
#      -I<prefix>/include/takyon); with UCX, a Ucx path through the module in <libdir>/takyon,
#      which libtakyon loads on first use (libtakyon itself must not link UCX);
#   4. MPI programs in C and C++ built with the installed takyon-mpicc/takyon-mpicxx (one of them
#      with paths between its ranks, takyon/takyon_mpi.h), run as
#      singletons, under the installed takyon-run, under Open MPI's mpirun and under srun --mpi=pmix
#      (when given);
#   5. find_package(MPI) pointed at the installed wrappers;
#   6. the installed tools start (takyon-run, takyon-bench, takyon-bench-mpi's binding study).
# cmake -DBUILD_DIR=<takyon build> -DSOURCE_DIR=<tests/install> -DMPI_TEST_DIR=<tests/mpi/header>
#       -DWORK_DIR=<scratch> -DC_COMPILER=<cc> -DCXX_COMPILER=<c++> -DGENERATOR=<generator>
#       [-DSANITIZE_FLAGS=<flags>] [-DMPIRUN=<Open MPI's mpirun>] [-DSRUN=<srun>] -P run_install_test.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var BUILD_DIR SOURCE_DIR MPI_TEST_DIR WORK_DIR C_COMPILER CXX_COMPILER GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_install_test.cmake needs -D${var}=...")
  endif()
endforeach()
separate_arguments(sanitize_flags UNIX_COMMAND "${SANITIZE_FLAGS}")
# What the consumers run with: this environment without LD_LIBRARY_PATH, and without the variables
# of a launcher that may have started ctest (a program would take itself for one of its ranks).
set(clean_env ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH --unset=TAKYON_RUN_RANK
              --unset=TAKYON_RUN_RENDEZVOUS --unset=PMIX_NAMESPACE --unset=OMPI_COMM_WORLD_RANK)

# step(<what> <command>...): runs the command in the clean environment, shows its output, stops the
# test if it fails; the output is left in step_output.
function(step what)
  message(STATUS "install test: ${what}")
  execute_process(COMMAND ${clean_env} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${what} FAILED (${rc}):\n  ${ARGN}\n${out}")
  endif()
  if(NOT out STREQUAL "")
    message("${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# expect_output(<what> <regex>): the last step's output must match.
function(expect_output what regex)
  if(NOT step_output MATCHES "${regex}")
    message(FATAL_ERROR "install test: ${what}: output does not match '${regex}':\n${step_output}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# 1. Install, as a packager would (cmake --install <build> --prefix <dir>), then move the prefix: what
#    works must not depend on where it was installed.
set(staged "${WORK_DIR}/staged")
step("cmake --install into ${staged}" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${staged}")
file(MAKE_DIRECTORY "${WORK_DIR}/moved")
set(prefix "${WORK_DIR}/moved/prefix")
file(RENAME "${staged}" "${prefix}")
message(STATUS "install test: moved the prefix to ${prefix}")

file(GLOB config_files "${prefix}/lib*/cmake/Takyon/TakyonConfig.cmake"
                       "${prefix}/lib/*/cmake/Takyon/TakyonConfig.cmake")
file(GLOB pc_files "${prefix}/lib*/pkgconfig/takyon.pc" "${prefix}/lib/*/pkgconfig/takyon.pc")
file(GLOB libraries "${prefix}/lib*/libtakyon.so*" "${prefix}/lib/*/libtakyon.so*"
                    "${prefix}/lib*/libtakyon.a")
foreach(header takyon/takyon.h takyon/takyon_extensions.h takyon/takyon.hpp takyon/takyon_export.h
               takyon/mpi/mpi.h)
  if(NOT EXISTS "${prefix}/include/${header}")
    message(FATAL_ERROR "install test: ${prefix}/include/${header} was not installed")
  endif()
endforeach()
if(NOT config_files OR NOT pc_files OR NOT libraries)
  message(FATAL_ERROR "install test: missing TakyonConfig.cmake (${config_files}), takyon.pc (${pc_files}) "
                      "or libtakyon (${libraries}) under ${prefix}")
endif()
list(GET pc_files 0 pc_file)
get_filename_component(pc_dir "${pc_file}" DIRECTORY)
get_filename_component(libdir "${pc_dir}" DIRECTORY)

# Every ELF file of the prefix loads with nothing but its own RUNPATH and the system's folders.
find_program(LDD ldd REQUIRED)
file(GLOB_RECURSE installed LIST_DIRECTORIES false "${prefix}/bin/*" "${prefix}/lib*/*.so*" "${prefix}/libexec/*")
set(elf_count 0)
foreach(f IN LISTS installed)
  if(IS_SYMLINK "${f}")
    continue()
  endif()
  file(READ "${f}" magic LIMIT 4 HEX)
  if(NOT magic STREQUAL "7f454c46")  # scripts, data
    continue()
  endif()
  math(EXPR elf_count "${elf_count} + 1")
  execute_process(COMMAND ${clean_env} ${LDD} "${f}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(out MATCHES "not found")
    message(FATAL_ERROR "install test: ${f} does not find its libraries from the moved prefix "
                        "(LD_LIBRARY_PATH unset):\n${out}")
  endif()
endforeach()
message(STATUS "install test: ${elf_count} installed ELF files find their libraries")
if(elf_count LESS 3)
  message(FATAL_ERROR "install test: only ${elf_count} ELF files under ${prefix}")
endif()

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

# 3. The same sources built by hand with `pkg-config --cflags --libs takyon`, and guide-style code.
find_program(PKG_CONFIG_EXECUTABLE NAMES pkg-config pkgconf)
if(NOT PKG_CONFIG_EXECUTABLE)
  message(FATAL_ERROR "install test: pkg-config not found (apt-get install pkg-config)")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env "PKG_CONFIG_PATH=${pc_dir}" ${PKG_CONFIG_EXECUTABLE} --cflags --libs takyon
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
set(pc_lib_flags "")
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
  if(NOT flag MATCHES "^-I")
    list(APPEND pc_lib_flags "${flag}")
  endif()
endforeach()
if(NOT include_ok OR NOT lib_ok)
  message(FATAL_ERROR "install test: takyon.pc does not point into the prefix it was installed to "
                      "(${prefix}): pkg-config says '${pc_flags_text}'. takyon.pc must be relocatable "
                      "(prefix=\${pcfiledir}/../..) so that `cmake --install --prefix <dir>` works.")
endif()
step("compile the pkg-config C consumer"
     ${C_COMPILER} ${sanitize_flags} -std=c99 -Wall -Wextra -Werror -pthread
     "${SOURCE_DIR}/consumer/consumer.c" -o "${WORK_DIR}/pkg-config-consumer_c" ${pc_flags})
step("run the pkg-config C consumer" "${WORK_DIR}/pkg-config-consumer_c")
step("compile the pkg-config C++ consumer"
     ${CXX_COMPILER} ${sanitize_flags} -std=c++20 -Wall -Wextra -Werror -pthread
     "${SOURCE_DIR}/consumer/consumer.cpp" -o "${WORK_DIR}/pkg-config-consumer_cpp" ${pc_flags})
step("run the pkg-config C++ consumer" "${WORK_DIR}/pkg-config-consumer_cpp")
step("compile guide-style C (#include \"takyon.h\", -I<prefix>/include/takyon)"
     ${C_COMPILER} ${sanitize_flags} -std=c99 -Wall -Wextra -Werror -pthread -DGUIDE_STYLE
     "-I${prefix}/include/takyon" "${SOURCE_DIR}/consumer/consumer.c" -o "${WORK_DIR}/guide-style-consumer"
     ${pc_lib_flags})
step("run the guide-style C consumer" "${WORK_DIR}/guide-style-consumer")

# 3b. The Ucx module (builds with UCX): installed in <libdir>/takyon beside libtakyon, which does not
#     link UCX itself; a program built against the moved prefix loads it for its first Ucx path.
set(ucx_module "${libdir}/takyon/libtakyon_ucx.so")
if(EXISTS "${ucx_module}")
  step("ldd the Ucx module" ${LDD} "${ucx_module}")
  file(GLOB shared_libtakyon "${libdir}/libtakyon.so.*.*")
  foreach(lib IN LISTS shared_libtakyon)
    execute_process(COMMAND readelf -d "${lib}" OUTPUT_VARIABLE dynamic)
    if(dynamic MATCHES "NEEDED[^\n]*lib(ucp|ucs|uct)")
      message(FATAL_ERROR "install test: ${lib} links UCX itself:\n${dynamic}")
    endif()
  endforeach()
  step("compile ucx_module_probe.c against the moved prefix"
       ${C_COMPILER} ${sanitize_flags} -std=c99 -Wall -Wextra -Werror -pthread
       "${SOURCE_DIR}/../ucx/ucx_module_probe.c" -o "${WORK_DIR}/ucx_module_probe" ${pc_flags})
  step("a Ucx path from the moved prefix (UCX loaded on first use)" "${WORK_DIR}/ucx_module_probe" lazy pid)
  expect_output("ucx_module_probe lazy" "PROBE OK")
else()
  message(STATUS "install test: no Ucx module under ${libdir}/takyon (this build has no UCX)")
endif()

# 4. MPI programs through the installed wrappers, under every launcher at hand.
set(mpicc "${prefix}/bin/takyon-mpicc")
if(NOT EXISTS "${mpicc}")
  message(STATUS "install test: PASSED without MPI (this build has no MPI layer: TAKYON_BUILD_MPI=OFF)")
  return()
endif()
set(mpicxx "${prefix}/bin/takyon-mpicxx")
set(takyon_run "${prefix}/bin/takyon-run")
step("takyon-mpicc hello.c" ${mpicc} ${sanitize_flags} "${MPI_TEST_DIR}/hello.c" -o "${WORK_DIR}/hello_c")
step("takyon-mpicxx hello.cpp" ${mpicxx} ${sanitize_flags} "${MPI_TEST_DIR}/hello.cpp" -o "${WORK_DIR}/hello_cxx")
# What rank 1 of two prints when the ranks talked: hello.c passes it a token, hello.cpp sums the ranks.
set(two_ranks_hello_c "hello from rank 1 of 2 .*token 42")
set(two_ranks_hello_cxx "rank 1 of 2 \\(sum of ranks 1\\)")
foreach(prog hello_c hello_cxx)
  set(exe "${WORK_DIR}/${prog}")
  step("${prog} as a singleton" "${exe}")
  expect_output("${prog} as a singleton" "rank 0 of 1")
  step("${prog} under the installed takyon-run" ${takyon_run} -n 2 "${exe}")
  expect_output("${prog} under takyon-run" "${two_ranks_${prog}}")
  if(MPIRUN)
    step("${prog} under mpirun" ${MPIRUN} --allow-run-as-root --oversubscribe -np 2 "${exe}")
    expect_output("${prog} under mpirun" "${two_ranks_${prog}}")
  endif()
  if(SRUN)
    step("${prog} under srun --mpi=pmix" ${SRUN} --mpi=pmix -n 2 --overcommit "${exe}")
    expect_output("${prog} under srun" "${two_ranks_${prog}}")
  endif()
endforeach()

# An MPI kernel on paths (takyon/takyon_mpi.h): the installed wrapper plus pkg-config's flags.
set(halo_dir "${SOURCE_DIR}/../../examples/mpi_halo")
step("takyon-mpicc halo_paths.c with pkg-config takyon" ${mpicc} ${sanitize_flags} "${halo_dir}/halo_paths.c"
     -o "${WORK_DIR}/halo_paths" ${pc_flags})
step("halo_paths under the installed takyon-run" ${takyon_run} -n 2 "${WORK_DIR}/halo_paths" 64 32 10)
expect_output("halo_paths under takyon-run" "halo 64x32, 10 iterations on 2 ranks: checksum")

# 5. find_package(MPI) pointed at the installed wrappers (the findmpi project of tests/mpi/header).
set(findmpi "${WORK_DIR}/findmpi")
step("configure the find_package(MPI) consumer with the installed wrappers"
     ${CMAKE_COMMAND} -S "${MPI_TEST_DIR}/findmpi" -B "${findmpi}" -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release
     "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
     "-DCMAKE_C_FLAGS=${SANITIZE_FLAGS}" "-DCMAKE_CXX_FLAGS=${SANITIZE_FLAGS}"
     "-DCMAKE_EXE_LINKER_FLAGS=${SANITIZE_FLAGS}"
     "-DMPI_C_COMPILER=${mpicc}" "-DMPI_CXX_COMPILER=${mpicxx}" -DMPI_SKIP_COMPILER_WRAPPER=OFF
     "-DEXPECT_INCLUDE_DIR=${prefix}/include/takyon/mpi" "-DHELLO_DIR=${MPI_TEST_DIR}")
step("build the find_package(MPI) consumer" ${CMAKE_COMMAND} --build "${findmpi}")
foreach(prog c cxx)
  step("find_package(MPI) app_${prog} as a singleton" "${findmpi}/app_${prog}")
  expect_output("find_package(MPI) app_${prog}" "rank 0 of 1")
  step("find_package(MPI) app_${prog} under takyon-run" ${takyon_run} -n 2 "${findmpi}/app_${prog}")
  expect_output("find_package(MPI) app_${prog} under takyon-run" "${two_ranks_hello_${prog}}")
endforeach()

# 6. The installed tools start from the moved prefix.
step("takyon-run --help" ${takyon_run} --help)
if(EXISTS "${prefix}/bin/takyon-bench")
  step("takyon-bench --help" "${prefix}/bin/takyon-bench" --help)
endif()
if(EXISTS "${prefix}/bin/takyon-bench-mpi")
  step("takyon-bench-mpi --binding-runs 1 (finds takyon-run and its programs in the prefix)"
       "${prefix}/bin/takyon-bench-mpi" --binding-runs 1 --timeout 60 --fail-on-error
       --out-dir "${WORK_DIR}/binding")
  expect_output("takyon-bench-mpi --binding-runs 1" "default +1 ")
endif()

message(STATUS "install test: PASSED (the moved prefix ${prefix} served every consumer with LD_LIBRARY_PATH unset)")
