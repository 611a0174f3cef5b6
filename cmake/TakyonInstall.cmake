# SPDX-License-Identifier: MIT
# make install: headers, libtakyon, the CMake package (find_package(Takyon)) and takyon.pc.
include(CMakePackageConfigHelpers)

install(TARGETS takyon EXPORT TakyonTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/takyon DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(TAKYON_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Takyon)
install(EXPORT TakyonTargets NAMESPACE Takyon:: DESTINATION ${TAKYON_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TakyonConfig.cmake.in
  ${PROJECT_BINARY_DIR}/TakyonConfig.cmake INSTALL_DESTINATION ${TAKYON_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TakyonConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/TakyonConfig.cmake ${PROJECT_BINARY_DIR}/TakyonConfigVersion.cmake
        DESTINATION ${TAKYON_CMAKE_DIR})

# The .pc file finds its prefix relative to itself, so `cmake --install --prefix X` works anywhere.
file(RELATIVE_PATH TAKYON_PC_PREFIX_FROM_PCFILEDIR "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" TAKYON_PC_PREFIX_FROM_PCFILEDIR "${TAKYON_PC_PREFIX_FROM_PCFILEDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/takyon.pc.in ${PROJECT_BINARY_DIR}/takyon.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/takyon.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
