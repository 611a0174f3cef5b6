# SPDX-License-Identifier: MIT
# TAKYON_SANITIZE=address -> ASan + UBSan (no recovery); =thread -> TSan. Applies to every target.
# TAKYON_TEST_ENVIRONMENT: what every test runs with (tests/ and bench/ smoke tests).
# TAKYON_SANITIZE_FLAGS: what a program the tests compile outside CMake (a README example, an install
# consumer) needs to link against the sanitized libraries.
set(TAKYON_TEST_ENVIRONMENT "TAKYON_TEST=1")
set(TAKYON_SANITIZE_FLAGS "")
if(TAKYON_SANITIZE STREQUAL "address")
  set(TAKYON_SANITIZE_FLAGS "-fsanitize=address,undefined")
  add_compile_options(${TAKYON_SANITIZE_FLAGS} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(${TAKYON_SANITIZE_FLAGS})
elseif(TAKYON_SANITIZE STREQUAL "thread")
  set(TAKYON_SANITIZE_FLAGS "-fsanitize=thread")
  add_compile_options(${TAKYON_SANITIZE_FLAGS} -fno-omit-frame-pointer)
  add_link_options(${TAKYON_SANITIZE_FLAGS})
  # UCX's memory hooks patch mmap/munmap, which TSan intercepts too: together they crash a
  # program as UCX loads (with its first Ucx path). UCX reads this when it loads, so it must be in
  # the environment of every test (each add_test sets ENVIRONMENT from this).
  set(TAKYON_TEST_ENVIRONMENT "UCX_MEM_MMAP_HOOK_MODE=none")
elseif(NOT TAKYON_SANITIZE STREQUAL "")
  message(FATAL_ERROR "TAKYON_SANITIZE must be '', 'address' or 'thread', not '${TAKYON_SANITIZE}'")
endif()
