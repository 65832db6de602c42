include(CMakePackageConfigHelpers)

install(TARGETS osmp EXPORT osmpTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT osmpTargets NAMESPACE osmp:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/osmp)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/osmpConfig.cmake.in
  ${PROJECT_BINARY_DIR}/osmpConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/osmp)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/osmpConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/osmpConfig.cmake ${PROJECT_BINARY_DIR}/osmpConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/osmp)

file(RELATIVE_PATH OSMP_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_PREFIX})
configure_file(${PROJECT_SOURCE_DIR}/cmake/osmp.pc.in ${PROJECT_BINARY_DIR}/osmp.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/osmp.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
