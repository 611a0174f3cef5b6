# SPDX-License-Identifier: MIT
# Warnings every Takyon target compiles with (an interface target to link against).
add_library(takyon_warnings INTERFACE)
target_compile_options(takyon_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Wold-style-cast>)

# Every warning an error: ci/test.sh's normal configuration builds with it, so a change that warns
# does not land. Off by default, so a user's newer compiler with new warnings still builds Takyon.
option(TAKYON_WERROR "Treat compiler warnings as errors" OFF)
if(TAKYON_WERROR)
  add_compile_options(-Werror)
endif()
