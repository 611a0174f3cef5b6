# SPDX-License-Identifier: MIT
# TAKYON_SANITIZE=address -> ASan + UBSan (no recovery); =thread -> TSan. Applies to every target.
if(TAKYON_SANITIZE STREQUAL "address")
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
elseif(TAKYON_SANITIZE STREQUAL "thread")
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
elseif(NOT TAKYON_SANITIZE STREQUAL "")
  message(FATAL_ERROR "TAKYON_SANITIZE must be '', 'address' or 'thread', not '${TAKYON_SANITIZE}'")
endif()
