# SPDX-License-Identifier: MIT
# takyon_mpi_program(<name> SOURCE <file.c> NP <n>... [PMIX_NP <n>...] [EXPECT ok|fail|rc=<n>] [NO_COMPARE]
#                    [LAUNCHERS ...] [GROUP <group>] [SANITIZED_PMIX] [LINK_TAKYON])
#
# Builds an MPI test program twice, against libtakyon_mpi (target mpi_test_<name>) and, when Open
# MPI's mpicc is found, with it (custom command), then registers one ctest per launcher and np:
#   mpi.<group>.<name>.takyon-run.np<N>   ${CMAKE_BINARY_DIR}/bin/takyon-run -n N
#   mpi.<group>.<name>.mpirun.np<N>       mpirun --oversubscribe -np N (libtakyon_mpi bootstraps via PMIx)
#   mpi.<group>.<name>.srun.np<N>         ${TAKYON_SLURM_SRUN} --mpi=pmix -n N (fixture takyon_slurm)
#   mpi.<group>.<name>.compare.np<N>      takyon-run's output == the Open MPI build's under mpirun
# EXPECT says how a run must end (default ok; compare tests exist only for ok programs).
# PMIX_NP (default: NP) limits the mpirun, srun and compare runs to those of the NP values it lists,
# so that a program swept over np 1..5 under takyon-run costs the PMIx launchers one or two runs.
# LINK_TAKYON: the program also uses the path API (takyon_mpi.h), so both builds link libtakyon.
include_guard(GLOBAL)

find_program(TAKYON_OMPI_MPICC NAMES mpicc DOC "Open MPI's mpicc (builds the comparison programs)")
find_program(TAKYON_OMPI_MPIRUN NAMES mpirun DOC "Open MPI's mpirun (runs libtakyon_mpi programs through PMIx)")
if(NOT TAKYON_OMPI_MPICC OR NOT TAKYON_OMPI_MPIRUN)
  message(STATUS "tests/mpi: Open MPI's mpicc/mpirun not found: no mpirun runs, no comparison with Open MPI")
endif()
set(TAKYON_MPI_RUN_PROGRAM ${CMAKE_CURRENT_LIST_DIR}/run_mpi_program.sh)
# Every directory's programs/test_util.h includes this one (the shared helpers).
set(TAKYON_MPI_TEST_UTIL ${CMAKE_CURRENT_LIST_DIR}/p2p/programs/test_util.h)
# libpmix leaks a few bytes at init (tests/mpi/launch's suppressions): PMIx-launched runs use them.
set(TAKYON_MPI_PMIX_TEST_ENVIRONMENT ${TAKYON_TEST_ENVIRONMENT}
    LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/launch/lsan_pmix.supp)
# ThreadSanitizer watches the threads of one process, and an MPI program here runs as processes of
# one thread each: libtakyon_mpi and takyon-run start no thread of their own (shared memory between
# processes is outside what TSan sees). So under TSan the programs run only where a thread or a signal
# handler is at work: over the Ucx channel (UCX starts its own async thread in each process), and the
# runs that must fail (takyon-run's signal handling as a rank dies or aborts, which TSan checks for
# async-signal safety). tests/mpi/launch (PMIx's threads) and the library's unit tests run in full.
# TAKYON_MPI_PLAIN_RUNS is OFF there; the directories' own extra runs of one process per rank follow it.
if(TAKYON_SANITIZE STREQUAL "thread")
  set(TAKYON_MPI_PLAIN_RUNS OFF)
else()
  set(TAKYON_MPI_PLAIN_RUNS ON)
endif()
# The shared heap (mpi_compat/src/shm/heap.hpp) is compiled out under the sanitizers, whose runtimes
# own malloc: there a run with TAKYON_MPI_SHARED_HEAP=0 is the plain run again, so it is not registered.
if(TAKYON_SANITIZE STREQUAL "")
  set(TAKYON_MPI_HAS_SHARED_HEAP ON)
else()
  set(TAKYON_MPI_HAS_SHARED_HEAP OFF)
endif()

# The rank counts at which a program swept over np 1-5 runs under takyon-run (takyon_mpi_program, the
# coll directory's all-shm runs). Under ASan np 5 is left out: like np 3 it is not a power of two and,
# like np 4, it oversubscribes two cores, and the normal configuration runs it; the sweeps' np-5 runs
# were a sizeable share of ASan's test time.
if(TAKYON_SANITIZE STREQUAL "address")
  set(TAKYON_MPI_NP_SWEEP 1 2 3 4)
else()
  set(TAKYON_MPI_NP_SWEEP 1 2 3 4 5)
endif()

# TAKYON_MPI_CPUS01: a command prefix (taskset -c 0,1) that confines a launcher and its ranks to CPUs 0
# and 1, so that three or more ranks outnumber their CPUs whatever the machine (the placement of
# unbound ranks, the oversubscribed barrier). Empty without taskset, on a one-CPU machine, and where
# plain runs are off (TSan).
find_program(TAKYON_TASKSET taskset)
cmake_host_system_information(RESULT takyon_host_cpus QUERY NUMBER_OF_LOGICAL_CORES)
set(TAKYON_MPI_CPUS01 "")
if(TAKYON_TASKSET AND takyon_host_cpus GREATER_EQUAL 2 AND TAKYON_MPI_PLAIN_RUNS)
  set(TAKYON_MPI_CPUS01 ${TAKYON_TASKSET} -c 0,1)
endif()

function(takyon_mpi_program name)
  cmake_parse_arguments(ARG "NO_COMPARE;SANITIZED_PMIX;LINK_TAKYON" "SOURCE;EXPECT;GROUP" "NP;PMIX_NP;LAUNCHERS" ${ARGN})
  if(NOT ARG_EXPECT)
    set(ARG_EXPECT ok)
  endif()
  if(NOT ARG_GROUP)
    set(ARG_GROUP p2p)
  endif()
  if(NOT DEFINED ARG_PMIX_NP)
    set(ARG_PMIX_NP ${ARG_NP})
  endif()
  if(NOT ARG_LAUNCHERS)
    set(ARG_LAUNCHERS takyon-run mpirun srun)
  endif()
  get_property(have_pmix GLOBAL PROPERTY TAKYON_MPI_HAVE_PMIX)
  set(src ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_SOURCE})
  set(target mpi_test_${name})
  add_executable(${target} ${src})
  target_link_libraries(${target} PRIVATE takyon_mpi)
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/programs)
  add_dependencies(${target} takyon-run)
  set(ompi_takyon "")
  if(ARG_LINK_TAKYON)
    target_link_libraries(${target} PRIVATE Takyon::takyon)
    set(ompi_takyon -I${PROJECT_SOURCE_DIR}/core/include -L$<TARGET_FILE_DIR:takyon> -ltakyon -Wl,-rpath,$<TARGET_FILE_DIR:takyon>)
  endif()

  set(ompi_prog "")
  # (Only the normal configuration compares with Open MPI, so only it builds the Open MPI programs.)
  if(TAKYON_OMPI_MPICC AND NOT ARG_NO_COMPARE AND ARG_EXPECT STREQUAL "ok" AND TAKYON_SANITIZE STREQUAL "")
    set(ompi_prog ${CMAKE_CURRENT_BINARY_DIR}/ompi/${target})
    add_custom_command(OUTPUT ${ompi_prog}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/ompi
      COMMAND ${TAKYON_OMPI_MPICC} -O2 -std=c99 -I${CMAKE_CURRENT_SOURCE_DIR}/programs ${src} -o ${ompi_prog}
              ${ompi_takyon}
      DEPENDS ${src} ${CMAKE_CURRENT_SOURCE_DIR}/programs/test_util.h ${TAKYON_MPI_TEST_UTIL}
              $<$<BOOL:${ARG_LINK_TAKYON}>:takyon>
      COMMENT "Building ${target} with Open MPI's mpicc" VERBATIM)
    add_custom_target(${target}_ompi ALL DEPENDS ${ompi_prog})
  endif()

  # The sanitizer configurations check memory and thread safety, not launch paths (tests/mpi/launch
  # covers PMIx under them): ASan runs the PMIx launchers, at the first PMIX_NP value, only for the
  # programs that must fail (their aborts and dead peers take PMIx's paths) and those marked
  # SANITIZED_PMIX (a whole program's traffic after a PMIx bootstrap); TSan runs (see
  # TAKYON_MPI_PLAIN_RUNS) only the programs that must fail, under takyon-run at their first NP.
  set(takyon_run_np ${ARG_NP})
  # A program swept over np 1-5 runs at TAKYON_MPI_NP_SWEEP's counts (under ASan, not at np 5).
  if(3 IN_LIST takyon_run_np AND NOT 5 IN_LIST TAKYON_MPI_NP_SWEEP)
    list(REMOVE_ITEM takyon_run_np 5)
  endif()
  if(TAKYON_SANITIZE STREQUAL "address")
    if(ARG_EXPECT STREQUAL "ok" AND NOT ARG_SANITIZED_PMIX)
      set(ARG_PMIX_NP "")
    else()
      list(SUBLIST ARG_PMIX_NP 0 1 ARG_PMIX_NP)
    endif()
  elseif(NOT TAKYON_MPI_PLAIN_RUNS)
    set(ARG_PMIX_NP "")
    set(takyon_run_np "")
    if(NOT ARG_EXPECT STREQUAL "ok")
      list(SUBLIST ARG_NP 0 1 takyon_run_np)
    endif()
  endif()

  set(run ${TAKYON_MPI_RUN_PROGRAM} run ${ARG_EXPECT} --)
  foreach(np IN LISTS ARG_NP)
    set(base mpi.${ARG_GROUP}.${name})
    if("takyon-run" IN_LIST ARG_LAUNCHERS AND np IN_LIST takyon_run_np)
      add_test(NAME ${base}.takyon-run.np${np} COMMAND ${run} ${CMAKE_BINARY_DIR}/bin/takyon-run -n ${np} $<TARGET_FILE:${target}>)
      set_tests_properties(${base}.takyon-run.np${np} PROPERTIES LABELS mpi TIMEOUT 60 ENVIRONMENT "${TAKYON_TEST_ENVIRONMENT}")
    endif()
    if("mpirun" IN_LIST ARG_LAUNCHERS AND np IN_LIST ARG_PMIX_NP AND TAKYON_OMPI_MPIRUN AND have_pmix)
      add_test(NAME ${base}.mpirun.np${np}
               COMMAND ${run} ${TAKYON_OMPI_MPIRUN} --allow-run-as-root --oversubscribe -np ${np} $<TARGET_FILE:${target}>)
      set_tests_properties(${base}.mpirun.np${np} PROPERTIES LABELS mpi TIMEOUT 60
                           ENVIRONMENT "${TAKYON_MPI_PMIX_TEST_ENVIRONMENT}")
    endif()
    if("srun" IN_LIST ARG_LAUNCHERS AND np IN_LIST ARG_PMIX_NP AND TAKYON_SLURM_SRUN AND have_pmix)
      add_test(NAME ${base}.srun.np${np}
               COMMAND ${run} ${TAKYON_SLURM_SRUN} --mpi=pmix -n ${np} --overcommit $<TARGET_FILE:${target}>)
      set_tests_properties(${base}.srun.np${np} PROPERTIES LABELS mpi TIMEOUT 60 FIXTURES_REQUIRED takyon_slurm
                           ENVIRONMENT "${TAKYON_MPI_PMIX_TEST_ENVIRONMENT}")
    endif()
    # The output comparison is about MPI semantics, not memory or thread safety: the sanitizer
    # configurations already run the same program under every launcher, so it runs in the normal one.
    if(ompi_prog AND TAKYON_SANITIZE STREQUAL "" AND np IN_LIST ARG_PMIX_NP)
      add_test(NAME ${base}.compare.np${np}
               COMMAND ${TAKYON_MPI_RUN_PROGRAM} compare ${np} ${CMAKE_BINARY_DIR}/bin/takyon-run $<TARGET_FILE:${target}>
                       ${TAKYON_OMPI_MPIRUN} ${ompi_prog})
      set_tests_properties(${base}.compare.np${np} PROPERTIES LABELS mpi TIMEOUT 60 ENVIRONMENT "${TAKYON_TEST_ENVIRONMENT}")
    endif()
  endforeach()
endfunction()

# takyon_mpi_env_test(<name> <variant> <np> <expect> VAR=value...)
# Runs the already declared program <name> under takyon-run with extra environment variables:
#   mpi.<group>.<name>.takyon-run.<variant>.np<N>   (e.g. a forced channel: TAKYON_MPI_PROVIDER=InterProcessSocket;
#   <group> is p2p, or TAKYON_MPI_ENV_TEST_GROUP where the calling directory sets it)
# Under TSan (TAKYON_MPI_PLAIN_RUNS OFF) only a run that must fail or one over UCX is registered: a
# forced Ucx channel, or fake hosts (whose route is Ucx over TCP). Under either sanitizer no run
# without the shared heap is (TAKYON_MPI_HAS_SHARED_HEAP).
function(takyon_mpi_env_test name variant np expect)
  if(NOT TAKYON_MPI_PLAIN_RUNS AND expect STREQUAL "ok" AND NOT "${ARGN}" MATCHES "TAKYON_MPI_PROVIDER=Ucx|TAKYON_MPI_FAKE_HOST")
    return()
  endif()
  if(NOT TAKYON_MPI_HAS_SHARED_HEAP AND "${ARGN}" MATCHES "TAKYON_MPI_SHARED_HEAP=0")
    return()
  endif()
  set(group p2p)
  if(DEFINED TAKYON_MPI_ENV_TEST_GROUP)
    set(group ${TAKYON_MPI_ENV_TEST_GROUP})
  endif()
  set(test mpi.${group}.${name}.takyon-run.${variant}.np${np})
  add_test(NAME ${test}
           COMMAND ${TAKYON_MPI_RUN_PROGRAM} run ${expect} -- ${CMAKE_BINARY_DIR}/bin/takyon-run -n ${np}
                   $<TARGET_FILE:mpi_test_${name}>)
  set_tests_properties(${test} PROPERTIES LABELS mpi TIMEOUT 60 ENVIRONMENT "${TAKYON_TEST_ENVIRONMENT};${ARGN}")
endfunction()
