# `cmake --install` layout: headers under include/ember/<folder>/, the library, a CMake
# package (EmberConfig.cmake + version file) and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS ember ember_distributed EXPORT EmberTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ember.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ember)
foreach(_dir core core/ops core/autograd nn nn/models data)
  file(GLOB _headers CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${_dir}/*.h")
  install(FILES ${_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ember/${_dir})
endforeach()
# Ember::distributed's public headers; transport, launcher and digest are its own business.
install(FILES nn/parallel/parallel.h nn/parallel/process_group.h nn/parallel/distributed_data_parallel.h
              nn/parallel/metrics.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ember/nn/parallel)

set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Ember)
install(EXPORT EmberTargets NAMESPACE Ember:: DESTINATION ${_cmake_dir})
# The build tree is a package too: find_package(Ember) with -DEmber_DIR=<build folder> uses
# it without installing (headers from the source tree, the library from the build).
export(EXPORT EmberTargets NAMESPACE Ember:: FILE "${CMAKE_CURRENT_BINARY_DIR}/EmberTargets.cmake")
configure_package_config_file(cmake/EmberConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/EmberConfig.cmake" INSTALL_DESTINATION ${_cmake_dir})
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/EmberConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/EmberConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/EmberConfigVersion.cmake" DESTINATION ${_cmake_dir})

# A shared libember carries its own dependencies; a static one hands them to the final link.
set(EMBER_PC_LIBS "-lember")
set(EMBER_PC_CFLAGS "")
if(NOT BUILD_SHARED_LIBS)
  set(EMBER_PC_CFLAGS "-DEMBER_STATIC")
  set(EMBER_PC_LIBS "-lember -lz -fopenmp -lpthread")
  if(EMBER_WITH_CUDA AND NOT EMBER_CUDA_EMULATED)
    string(APPEND EMBER_PC_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lcudnn -ldl -lrt")
  endif()
endif()
# Relocatable: the prefix is found from the .pc file's own folder, so a package installed
# with --prefix (or moved) still points at its own headers and library.
file(RELATIVE_PATH _ember_pc_up "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
set(EMBER_PC_PREFIX "\${pcfiledir}/${_ember_pc_up}")
configure_file(cmake/ember.pc.in "${CMAKE_CURRENT_BINARY_DIR}/ember.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/ember.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ember-distributed.pc: pkg-config --libs ember-distributed adds Ember::distributed to ember's
# flags; a static one names the MPI libraries it was built against (full paths, so it works
# for Open MPI and MPICH alike).
set(EMBER_DISTRIBUTED_PC_LIBS "-lember_distributed")
if(NOT BUILD_SHARED_LIBS AND EMBER_WITH_MPI)
  list(JOIN MPI_CXX_LIBRARIES " " _ember_mpi_libs)
  string(APPEND EMBER_DISTRIBUTED_PC_LIBS " ${_ember_mpi_libs}")
endif()
configure_file(cmake/ember-distributed.pc.in "${CMAKE_CURRENT_BINARY_DIR}/ember-distributed.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/ember-distributed.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
