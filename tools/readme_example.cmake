# SPDX-License-Identifier: MIT
# README.md's path example must compile and run as written: its C block (after "## A path in 20
# lines"), with the headers it leaves out and a main() that runs it as endpoints A and B in two threads.
#   cmake -DREADME=<README.md> -DCC=<cc> -DINCLUDE_DIR=<core/include> -DLIBRARY=<libtakyon> -DWORK_DIR=<dir>
#         [-DFLAGS=<sanitizer flags>] -P readme_example.cmake
cmake_minimum_required(VERSION 3.25)
file(READ "${README}" readme)
string(FIND "${readme}" "## A path in 20 lines" at)
if(at LESS 0)
  message(FATAL_ERROR "${README} has no '## A path in 20 lines' section")
endif()
string(SUBSTRING "${readme}" ${at} -1 rest)
string(FIND "${rest}" "```c\n" from)
math(EXPR from "${from} + 5")
string(SUBSTRING "${rest}" ${from} -1 rest)
string(FIND "${rest}" "```" to)
string(SUBSTRING "${rest}" 0 ${to} code)
file(MAKE_DIRECTORY "${WORK_DIR}")
file(WRITE "${WORK_DIR}/readme_example.c"
     "#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n${code}\n"
     "int main(void) {\n  pthread_t t[2];\n  pthread_create(&t[0], NULL, endpoint, (void *)1);\n"
     "  pthread_create(&t[1], NULL, endpoint, NULL);\n  pthread_join(t[0], NULL);\n  pthread_join(t[1], NULL);\n"
     "  return 0;\n}\n")
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
get_filename_component(libdir "${LIBRARY}" DIRECTORY)
execute_process(COMMAND "${CC}" ${flags} -std=c99 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L
                        "${WORK_DIR}/readme_example.c" -I "${INCLUDE_DIR}" "${LIBRARY}" "-Wl,-rpath,${libdir}" -pthread
                        -o "${WORK_DIR}/readme_example"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "README.md's example does not compile:\n${out}")
endif()
execute_process(COMMAND "${WORK_DIR}/readme_example" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 30)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "B got 'hello'\n")
  message(FATAL_ERROR "README.md's example ran with exit ${rc}:\n${out}${err}")
endif()
message(STATUS "README.md's example compiled and ran: ${out}")
