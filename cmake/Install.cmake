# Install rules: headers, libraries, the driver and a package config for find_package(pitot).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(PITOT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pitot)
set(_pitot_install_targets pitot pitot_main)
if(TARGET pitot_cuda)
  list(APPEND _pitot_install_targets pitot_cuda)
endif()
if(TARGET pitot_hip)
  list(APPEND _pitot_install_targets pitot_hip)
endif()
# Exported as pitot::main, pitot::cuda, pitot::hip: the names the build tree's aliases use.
set_target_properties(pitot_main PROPERTIES EXPORT_NAME main)
foreach(_backend cuda hip)
  if(TARGET pitot_${_backend})
    set_target_properties(pitot_${_backend} PROPERTIES EXPORT_NAME ${_backend})
  endif()
endforeach()
install(TARGETS ${_pitot_install_targets} EXPORT pitotTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET pitot_driver)
  install(TARGETS pitot_driver RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET pitot_cupti)
  # pitot looks for its tracer at ../lib/pitot/ beside its own binary: a literal path, not the libdir.
  install(TARGETS pitot_cupti LIBRARY DESTINATION lib/pitot)
endif()
install(DIRECTORY include/pitot DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT pitotTargets NAMESPACE pitot:: DESTINATION ${PITOT_CMAKE_DIR})
configure_package_config_file(cmake/pitotConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/pitotConfig.cmake
                              INSTALL_DESTINATION ${PITOT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/pitotConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/pitotConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/pitotConfigVersion.cmake
              cmake/PitotBenchmark.cmake cmake/PitotHip.cmake
        DESTINATION ${PITOT_CMAKE_DIR})
# The asv helper (scripts/pitot-asv) beside the driver.
install(PROGRAMS scripts/pitot-asv DESTINATION ${CMAKE_INSTALL_BINDIR})
