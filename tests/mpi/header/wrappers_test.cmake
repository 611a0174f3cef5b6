# SPDX-License-Identifier: MIT
# cmake -DWRAPPER_CC=... -DWRAPPER_CXX=... -DCC=... -DCXX=... -DINCLUDE_DIR=... -DLIB_DIR=...
#       -DHELLO_DIR=... -DWORK_DIR=... [-DLINK=ON] -P wrappers_test.cmake
# takyon-mpicc / takyon-mpicxx: every -showme query and its Open MPI output format, compile-only
# invocations adding no link flags, the compiler override variables, and compiling (with LINK=ON also
# linking) the hello programs.
foreach(var WRAPPER_CC WRAPPER_CXX CC CXX INCLUDE_DIR LIB_DIR HELLO_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "wrappers_test.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
foreach(var TAKYON_MPICC_CC TAKYON_MPICXX_CXX)
  unset(ENV{${var}})
endforeach()
set(failures 0)

# run(<out var> <command>...): runs it, fails the test on a non-zero exit, returns stdout stripped.
function(run out)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "'${cmd}' exited with ${rc}:\n${stdout}\n${stderr}")
  endif()
  set(${out} "${stdout}" PARENT_SCOPE)
endfunction()

# expect(<what> <text> <regex>): the whole text must match ^regex$. A function, not a macro, so the
# regex's backslashes reach MATCHES untouched.
function(expect what text regex)
  if(NOT "${text}" MATCHES "^${regex}$")
    message(SEND_ERROR "${what}: got '${text}', expected to match '^${regex}$'")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  else()
    message(STATUS "${what}: '${text}'")
  endif()
endfunction()

# Paths are matched literally.
string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" inc_re "${INCLUDE_DIR}")
string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" lib_re "${LIB_DIR}")
set(compile_re "-I${inc_re} -pthread")
set(library_re "-L${lib_re} -Wl,-rpath,${lib_re} -ltakyon_mpi")
set(link_re "-pthread ${library_re}")  # -showme:link; a whole command line has -pthread once

foreach(pair "${WRAPPER_CC}|${CC}|C|c" "${WRAPPER_CXX}|${CXX}|C\\+\\+|cpp")
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 wrapper)
  list(GET pair 1 compiler)
  list(GET pair 2 language_re)
  list(GET pair 3 ext)
  get_filename_component(name "${wrapper}" NAME)
  string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" compiler_re "${compiler}")

  # The -showme family, in Open MPI's formats.
  run(out ${wrapper} -showme:compile)
  expect("${name} -showme:compile" "${out}" "${compile_re}")
  run(out ${wrapper} -showme:link)
  expect("${name} -showme:link" "${out}" "${link_re}")
  run(out ${wrapper} -showme:incdirs)
  expect("${name} -showme:incdirs" "${out}" "${inc_re}")
  run(out ${wrapper} -showme:libdirs)
  expect("${name} -showme:libdirs" "${out}" "${lib_re}")
  run(out ${wrapper} -showme:libs)
  expect("${name} -showme:libs" "${out}" "takyon_mpi")
  run(out ${wrapper} -showme:command)
  expect("${name} -showme:command" "${out}" "${compiler_re}")
  run(out ${wrapper} -showme:version)
  expect("${name} -showme:version" "${out}"
         "${name}: Takyon MPI [0-9]+\\.[0-9]+\\.[0-9]+ \\(Language: ${language_re}\\)")
  run(out ${wrapper} -showme:help)
  expect("${name} -showme:help" "${out}" "${name} \\[-showme.*-showme:libs.*")
  run(out ${wrapper} -showme)
  expect("${name} -showme" "${out}" "${compiler_re} ${compile_re} ${library_re}")
  run(out ${wrapper} -show)
  expect("${name} -show" "${out}" "${compiler_re} ${compile_re} ${library_re}")
  run(out ${wrapper} -compile-info)
  expect("${name} -compile-info" "${out}" "${compiler_re} ${compile_re}")
  run(out ${wrapper} -link-info)
  expect("${name} -link-info" "${out}" "${compiler_re} ${compile_re} ${library_re}")

  # User arguments come first, then the wrapper's flags; compile-only modes get no link flags.
  run(out ${wrapper} -showme x.${ext} -o x)
  expect("${name} -showme x.${ext} -o x" "${out}"
         "${compiler_re} x\\.${ext} -o x ${compile_re} ${library_re}")
  foreach(mode -c -E -S -M -MM)
    run(out ${wrapper} -showme ${mode} x.${ext})
    expect("${name} -showme ${mode}" "${out}" "${compiler_re} ${mode} x\\.${ext} ${compile_re}")
  endforeach()
  run(out ${wrapper} -showme:compile -c x.${ext})
  expect("${name} -showme:compile -c x.${ext}" "${out}" "-c x\\.${ext} ${compile_re}")
  run(out ${wrapper} -showme:link x.o -o x)
  expect("${name} -showme:link x.o -o x" "${out}" "x\\.o -o x ${link_re}")
  # Questions to the compiler itself get no flags at all.
  run(out ${wrapper} -showme --version)
  expect("${name} -showme --version" "${out}" "${compiler_re} --version")
  run(out ${wrapper} -showme -dumpversion)
  expect("${name} -showme -dumpversion" "${out}" "${compiler_re} -dumpversion")
  run(out ${wrapper} --version)
  run(direct ${compiler} --version)
  if(NOT out STREQUAL direct)
    message(SEND_ERROR "${name} --version differs from ${compiler} --version:\n${out}\n---\n${direct}")
    math(EXPR failures "${failures} + 1")
  endif()

  # The compiler override: TAKYON_MPICC_CC for C, TAKYON_MPICXX_CXX for C++.
  if(ext STREQUAL "c")
    set(env TAKYON_MPICC_CC)
  else()
    set(env TAKYON_MPICXX_CXX)
  endif()
  run(out ${CMAKE_COMMAND} -E env ${env}=my-compiler ${wrapper} -showme:command)
  expect("${env}=my-compiler ${name} -showme:command" "${out}" "my-compiler")
  run(out ${CMAKE_COMMAND} -E env "${env}=${compiler} -DTAKYON_FROM_ENV"
      ${wrapper} -E -dM ${HELLO_DIR}/hello.${ext})
  if(NOT out MATCHES "#define TAKYON_FROM_ENV 1")
    message(SEND_ERROR "${env} with arguments was not used as the compiler")
    math(EXPR failures "${failures} + 1")
  endif()

  # Compile only: strict warnings, no library needed.
  if(ext STREQUAL "c")
    set(strict -std=c99 -Wall -Wextra -Werror -pedantic)
  else()
    set(strict -std=c++17 -Wall -Wextra -Werror -pedantic -Wold-style-cast)
  endif()
  run(out ${wrapper} ${strict} -c ${HELLO_DIR}/hello.${ext} -o ${WORK_DIR}/hello_${ext}.o)
  if(NOT EXISTS ${WORK_DIR}/hello_${ext}.o)
    message(SEND_ERROR "${name} -c did not produce hello_${ext}.o")
    math(EXPR failures "${failures} + 1")
  endif()

  # Link, once libtakyon_mpi exists: the program needs it and finds it through the rpath.
  if(LINK)
    run(out ${wrapper} ${strict} ${HELLO_DIR}/hello.${ext} -o ${WORK_DIR}/hello_${ext})
    run(dynamic readelf -d ${WORK_DIR}/hello_${ext})
    if(NOT dynamic MATCHES "NEEDED[^\n]*libtakyon_mpi\\.so"
       OR NOT dynamic MATCHES "(RUNPATH|RPATH)[^\n]*${lib_re}")
      message(SEND_ERROR "hello_${ext} lacks NEEDED libtakyon_mpi or its run path:\n${dynamic}")
      math(EXPR failures "${failures} + 1")
    endif()
    run(deps ldd ${WORK_DIR}/hello_${ext})
    if(NOT deps MATCHES "libtakyon_mpi\\.so[^\n]*=> ${lib_re}/")
      message(SEND_ERROR "hello_${ext} does not resolve libtakyon_mpi in ${LIB_DIR}:\n${deps}")
      math(EXPR failures "${failures} + 1")
    endif()
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK_DIR}")
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} wrapper check(s) failed")
endif()
message(STATUS "takyon-mpicc and takyon-mpicxx: all checks passed")
