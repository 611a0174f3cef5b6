# SPDX-License-Identifier: MIT
# Installed binaries find Takyon's libraries relative to themselves ($ORIGIN), so an install prefix
# works wherever it is put, and after it is moved, with no LD_LIBRARY_PATH. A RUNPATH covers only the
# direct dependencies of the object that carries it: every installed program *and* library that needs
# libtakyon or libtakyon_mpi carries its own (libtakyon_mpi needs libtakyon).

# takyon_install_rpath(<target> <install destination relative to the prefix>)
# Sets the target's INSTALL_RPATH to $ORIGIN/<path from the destination to the library directory>.
# An absolute CMAKE_INSTALL_LIBDIR is used as it is.
function(takyon_install_rpath target destination)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
    set(rpath "${CMAKE_INSTALL_LIBDIR}")
  else()
    file(RELATIVE_PATH rel "/${destination}" "/${CMAKE_INSTALL_LIBDIR}")
    if(rel STREQUAL "")
      set(rpath "$ORIGIN")
    else()
      set(rpath "$ORIGIN/${rel}")
    endif()
  endif()
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "${rpath}")
endfunction()
