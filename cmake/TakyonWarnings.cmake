# SPDX-License-Identifier: MIT
# Warnings every Takyon target compiles with (an interface target to link against).
add_library(takyon_warnings INTERFACE)
target_compile_options(takyon_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Wold-style-cast>)
