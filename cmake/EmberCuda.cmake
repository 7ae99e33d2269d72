# Decides whether the CUDA backend is built (EMBER_CUDA = AUTO | ON | OFF | EMULATE) and
# finds the CUDA toolkit and cuDNN. Sets EMBER_WITH_CUDA, and EMBER_CUDA_EMULATED for
# EMULATE: the backend's sources are compiled by the host compiler against the emulator in
# emulator/, with no CUDA toolkit, GPU library or GPU involved.
include(CheckLanguage)
set(EMBER_WITH_CUDA OFF)
set(EMBER_CUDA_EMULATED OFF)
if(EMBER_CUDA STREQUAL "EMULATE")
  set(EMBER_WITH_CUDA ON)
  set(EMBER_CUDA_EMULATED ON)
elseif(NOT EMBER_CUDA STREQUAL "OFF")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # Hopper SASS plus compute_90 PTX, so newer GPUs can JIT it.
    set(CMAKE_CUDA_ARCHITECTURES 90)
  endif()
  # nvcc is often installed off PATH, in the toolkit's default place: AUTO finds it there too.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    find_program(_ember_nvcc nvcc NO_CACHE)
    if(NOT _ember_nvcc)
      set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
    endif()
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(EMBER_WITH_CUDA ON)
  elseif(EMBER_CUDA STREQUAL "ON")
    message(FATAL_ERROR "EMBER_CUDA=ON but no CUDA compiler was found; set CMAKE_CUDA_COMPILER")
  endif()
endif()

# Recorded in the cache so scripts (.ci/run) can check what the configure decided.
set(EMBER_WITH_CUDA ${EMBER_WITH_CUDA} CACHE INTERNAL "Whether the CUDA backend is built")
set(EMBER_CUDA_EMULATED ${EMBER_CUDA_EMULATED} CACHE INTERNAL "Whether the CUDA backend runs on the host emulator")

if(EMBER_CUDA_EMULATED)
  message(STATUS "Ember: CUDA backend EMULATED on the host (emulator/; tests and CI only)")
elseif(EMBER_WITH_CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  find_package(CUDAToolkit REQUIRED)
  # cuDNN may sit inside the CUDA tree (as here) or in the system's paths.
  find_path(CUDNN_INCLUDE_DIR cudnn.h
    HINTS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}/include ENV CUDNN_ROOT
    PATH_SUFFIXES include)
  find_library(CUDNN_LIBRARY cudnn
    HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib64 ENV CUDNN_ROOT
    PATH_SUFFIXES lib64 lib)
  if(NOT CUDNN_INCLUDE_DIR OR NOT CUDNN_LIBRARY)
    message(FATAL_ERROR "CUDA is on but cuDNN was not found (cudnn.h, libcudnn); set CUDNN_ROOT")
  endif()
  if(NOT TARGET Ember::cudnn)
    add_library(Ember::cudnn UNKNOWN IMPORTED)
    set_target_properties(Ember::cudnn PROPERTIES
      IMPORTED_LOCATION "${CUDNN_LIBRARY}" INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_INCLUDE_DIR}")
  endif()
  message(STATUS "Ember: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                 "architectures ${CMAKE_CUDA_ARCHITECTURES}, cuDNN ${CUDNN_LIBRARY})")
else()
  message(STATUS "Ember: CUDA backend OFF")
endif()

# Compile options and libraries of a target that holds CUDA code. The runtime is linked
# statically and the driver is never linked: cudart loads libcuda at run time, so every
# binary starts on a machine without a driver.
#
# EMBER_WITH_CUDA and EMBER_CUDA_EMULATED reach the build tree's own targets (tests read them)
# but not an installed or exported package: no installed header tests either.
function(ember_configure_cuda_target target)
  target_compile_definitions(${target} PUBLIC $<BUILD_INTERFACE:EMBER_WITH_CUDA=1>)
  if(EMBER_CUDA_EMULATED)
    ember_configure_emulated_cuda_target(${target})
    return()
  endif()
  # cuBLAS is not linked but opened on first use (kernels/cuda/cublas_loader.h says why);
  # the toolkit's library folder is where it is looked for when the loader's path lacks it.
  target_link_libraries(${target} PRIVATE CUDA::cudart_static Ember::cudnn ${CMAKE_DL_LIBS})
  target_compile_definitions(${target} PRIVATE EMBER_CUDA_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}")
  target_include_directories(${target} SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS} ${CUDNN_INCLUDE_DIR})
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-fvisibility=hidden>)
  set_target_properties(${target} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
endfunction()

# The emulated build: .cu files are C++ for the host compiler, and the emulator
# (emulator/, target ember_cuda_emulator) stands in for the CUDA runtime, cuBLAS,
# cuDNN and CUB. Linking it brings its one include folder, which serves both <cuda_runtime.h>
# and the like and "cuda_emulator/<file>.h". Nothing else is linked. A shared library takes
# the whole emulator, so every hook its tests call is exported; a static one hands it to the
# final link.
function(ember_configure_emulated_cuda_target target)
  target_compile_definitions(${target} PUBLIC $<BUILD_INTERFACE:EMBER_CUDA_EMULATED=1>)
  if(BUILD_SHARED_LIBS)
    target_link_libraries(${target} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,ember_cuda_emulator>")
  else()
    target_link_libraries(${target} PRIVATE ember_cuda_emulator)
  endif()
  get_target_property(_sources ${target} SOURCES)
  foreach(_src IN LISTS _sources)
    if(_src MATCHES "\\.cu$")
      set_source_files_properties(${_src} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CXX)
    endif()
    if(_src MATCHES "kernels/cuda/.*\\.(cu|cpp)$")
      # Kernels carry `#pragma unroll`, which GCC does not know.
      set(_options -Wno-unknown-pragmas)
      if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        # Index width: a 64-bit index (a tensor's numel, a grid-stride position) narrowed to
        # 32 bits goes wrong only past 2^31 elements, which no test reaches; clang names every
        # such implicit narrowing at compile time, so here it is an error whatever
        # EMBER_WERROR says (tests/cuda/mutations/M14_int32_index.patch must not compile).
        list(APPEND _options -Werror=shorten-64-to-32 -Werror=implicit-int-conversion)
      endif()
      set_source_files_properties(${_src} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${_options}")
    endif()
  endforeach()
endfunction()
