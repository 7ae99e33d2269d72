# `cmake --install` layout: headers under include/ember/<folder>/, the library, a CMake
# package (EmberConfig.cmake + version file) and a pkg-config file.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# An emulated build's static libember names the CUDA emulator in its link interface, so the
# emulator joins the export set there (an emulated build is for tests; its package only has
# to configure and link).
set(_ember_exported ember ember_distributed)
if(EMBER_CUDA_EMULATED)
  list(APPEND _ember_exported ember_cuda_emulator)
endif()
install(TARGETS ${_ember_exported} EXPORT EmberTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The installed headers are two sets, each the closure of its umbrella: the user set, ember.h
# (and Ember::distributed's nn/parallel/parallel.h), and the opt-in extension set, extend.h,
# whose own headers live in extend/ (Backend, the registry, Allocator, the op kinds, autograd's
# Node, TensorImpl, the argument checks, the fused optimizer steps). The rest stays out of the
# package: the window arithmetic, the dtype dispatch, core's private helpers (checked_math.h,
# module_tag.h, io/file_io.h), nn's and data's own helpers (Ember::distributed's transport,
# launcher and digest, data/token_table.h) and the backends' headers.
set(_public "")
set(_public_paths "")
set(_pending ember.h extend.h nn/parallel/parallel.h)
while(_pending)
  list(POP_FRONT _pending _header)
  if(_header IN_LIST _public)
    continue()
  endif()
  list(APPEND _public ${_header})
  # A header is in the source tree, or generated (EmberPlainOps.cmake) in the build folder.
  set(_path "${CMAKE_CURRENT_SOURCE_DIR}/${_header}")
  if(NOT EXISTS "${_path}")
    set(_path "${EMBER_GENERATED_HEADERS}/ember/${_header}")
  endif()
  file(STRINGS "${_path}" _lines REGEX "^#include \"ember/[^\"]+\"")
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "^#include \"ember/([^\"]+)\".*" "\\1" _included "${_line}")
    list(APPEND _pending ${_included})
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_path}")
  list(APPEND _public_paths "${_path}")
endwhile()
foreach(_header _path IN ZIP_LISTS _public _public_paths)
  get_filename_component(_dir "${_header}" DIRECTORY)
  install(FILES "${_path}" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ember/${_dir})
endforeach()

set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/Ember)
get_filename_component(_ember_utf8proc_dir "${UTF8PROC_LIBRARY}" DIRECTORY)  # EmberConfig's hint
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
  set(EMBER_PC_LIBS "-lember -lutf8proc -lz -lpthread")
  if(EMBER_CUDA_EMULATED)
    set(EMBER_PC_LIBS "-lember -lember_cuda_emulator -lutf8proc -lz -lpthread")
  endif()
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
