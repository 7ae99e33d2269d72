# Decides whether the MPI transport of Ember::distributed is built (EMBER_MPI = AUTO | ON | OFF)
# and sets EMBER_WITH_MPI. Without MPI, Ember::distributed is still built: its world is one
# process, so a data-parallel program compiles and runs alone everywhere.
set(EMBER_WITH_MPI OFF)
if(NOT EMBER_MPI STREQUAL "OFF")
  # Ember calls the C API only; the deprecated C++ bindings are kept out (MPI_CXX_SKIP_MPICXX).
  # The CXX component, because the project enables no C compiler.
  set(MPI_CXX_SKIP_MPICXX ON)
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(EMBER_WITH_MPI ON)
  elseif(EMBER_MPI STREQUAL "ON")
    message(FATAL_ERROR "EMBER_MPI=ON but no MPI was found; install libopenmpi-dev (or MPICH) or set MPI_HOME")
  endif()
endif()
set(EMBER_WITH_MPI ${EMBER_WITH_MPI} CACHE INTERNAL "Whether Ember::distributed talks to MPI")
if(EMBER_WITH_MPI)
  # How tests and examples launch N ranks: ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} N
  # ${EMBER_MPIEXEC_FLAGS}. Open MPI refuses to run as root (CI containers) or with more ranks
  # than cores unless told; MPICH needs neither flag and would reject them.
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _ember_mpiexec_version ERROR_QUIET)
  set(EMBER_MPIEXEC_FLAGS ${MPIEXEC_PREFLAGS})
  if(_ember_mpiexec_version MATCHES "Open MPI|OpenRTE")
    list(APPEND EMBER_MPIEXEC_FLAGS --allow-run-as-root --oversubscribe)
  endif()
endif()
if(EMBER_WITH_MPI)
  message(STATUS "Ember: MPI ON (MPI ${MPI_CXX_VERSION}): Ember::distributed runs across processes; tests run under ${MPIEXEC_EXECUTABLE}")
elseif(EMBER_MPI STREQUAL "OFF")
  message(STATUS "Ember: MPI OFF (EMBER_MPI=OFF): Ember::distributed is a world of one process")
else()
  message(STATUS "Ember: MPI OFF (not found; apt-get install libopenmpi-dev openmpi-bin): Ember::distributed is a world of one process")
endif()
