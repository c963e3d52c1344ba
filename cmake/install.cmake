# `cmake --install`: the static libraries of the layers, the public headers (include/silt/), the
# CLI, an exported CMake package (find_package(silt) gives silt::silt) and a pkg-config file
# (silt.pc). examples/cmake-project/ is built against an install in `make test`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SILT_INSTALL_LIBS)
foreach(layer ${SILT_BUILT_LAYERS})
  get_target_property(type silt_${layer} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    list(APPEND SILT_INSTALL_LIBS silt_${layer})
  endif()
endforeach()
set_target_properties(silt_core PROPERTIES EXPORT_NAME silt)
target_compile_features(silt_core INTERFACE cxx_std_20)
install(TARGETS ${SILT_INSTALL_LIBS} silt_core EXPORT siltTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/silt DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def")
if(TARGET silt)
  install(TARGETS silt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT siltTargets NAMESPACE silt:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/silt)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/siltConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/siltConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/silt)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/siltConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/siltConfig.cmake ${CMAKE_BINARY_DIR}/siltConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/silt)

# pkg-config: the layers from the top down (static libraries: the order matters), then their
# dependencies.
set(SILT_PC_LIBS "")
list(REVERSE SILT_INSTALL_LIBS)
foreach(lib ${SILT_INSTALL_LIBS})
  string(APPEND SILT_PC_LIBS " -l${lib}")
endforeach()
# Relocatable: the prefix is found from the .pc file's own directory (cmake --install --prefix).
file(RELATIVE_PATH SILT_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${CMAKE_SOURCE_DIR}/cmake/silt.pc.in ${CMAKE_BINARY_DIR}/silt.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/silt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# A Debian package of the same install (`make deb`: cpack -G DEB in the release tree; cmake/deb-test.sh
# checks it in `make test`): one package `silt` holding the static libraries, the public headers,
# the CLI, the CMake package and silt.pc under /usr. Its dependencies: the shared libraries the CLI
# links (dpkg-shlibdeps) and the -dev packages of the third-party libraries the static layers need
# at link time (what siltConfig.cmake and silt.pc look up).
set(CPACK_PACKAGE_NAME silt)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Embeddable C++20 engine for Delta Lake tables (Spark SQL, table maintenance)")
set(CPACK_PACKAGE_CONTACT "silt developers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libsnappy-dev, libzstd-dev, liblz4-dev, zlib1g-dev, libbrotli-dev, libsimdjson-dev, libre2-dev, libssl-dev, libcurl4-openssl-dev | libcurl-dev, libroaring-dev, libavro-dev, pkg-config")
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)  # fast to build; every dpkg reads it
set(CPACK_GENERATOR DEB)
include(CPack)
