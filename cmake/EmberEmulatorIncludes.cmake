# The library reaches the CUDA emulator (emulator/) only inside
# `#if defined(EMBER_CUDA_EMULATED)` (or `#ifdef EMBER_CUDA_EMULATED`): every line that
# includes "cuda_emulator/..." in core/, extend/, kernels/, nn/, data/, ember.h and extend.h
# must sit in such a branch, not in its #else. A non-emulated build has no emulator include
# folder, so there an unguarded include cannot compile; but a CPU build compiles no CUDA source
# and the emulated build finds the headers anyway, so every build runs this check (on each
# change of a library file) and fails on such a line.
#
#   cmake -DEMBER_SOURCE_DIR=<source> [-DSTAMP=<file>] -P cmake/EmberEmulatorIncludes.cmake
#
# Included (not in script mode), it only defines ember_emulator_include_scope(<var> <source>):
# the files checked, for the build step's dependencies.

function(ember_emulator_include_scope out source_dir)
  set(_configure_depends CONFIGURE_DEPENDS)
  if(CMAKE_SCRIPT_MODE_FILE)
    set(_configure_depends "")
  endif()
  file(GLOB_RECURSE _files ${_configure_depends}
    ${source_dir}/core/*.h ${source_dir}/core/*.cpp ${source_dir}/extend/*.h
    ${source_dir}/kernels/*.h ${source_dir}/kernels/*.cuh
    ${source_dir}/kernels/*.cpp ${source_dir}/kernels/*.cu
    ${source_dir}/nn/*.h ${source_dir}/nn/*.cpp ${source_dir}/data/*.h ${source_dir}/data/*.cpp)
  list(APPEND _files ${source_dir}/ember.h ${source_dir}/extend.h)
  set(${out} ${_files} PARENT_SCOPE)
endfunction()

if(NOT CMAKE_SCRIPT_MODE_FILE)
  return()
endif()
cmake_minimum_required(VERSION 3.25)

ember_emulator_include_scope(_files "${EMBER_SOURCE_DIR}")
set(_emulated_if "^[ \t]*#[ \t]*(if[ \t]+defined[ \t]*\\(?[ \t]*EMBER_CUDA_EMULATED[ \t]*\\)?[ \t]*$|ifdef[ \t]+EMBER_CUDA_EMULATED[ \t]*$)")
set(_bad "")
foreach(_file IN LISTS _files)
  # Preprocessor lines only; a line continued with a backslash is not a directive this cares for.
  file(STRINGS "${_file}" _lines REGEX "^[ \t]*#")
  # One entry per open #if: 1 while in an emulated-only branch, 0 otherwise.
  set(_stack "")
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "[ \t]*//.*$" "" _line "${_line}")
    if(_line MATCHES "${_emulated_if}")
      list(APPEND _stack 1)
    elseif(_line MATCHES "^[ \t]*#[ \t]*if")
      list(APPEND _stack 0)
    elseif(_line MATCHES "^[ \t]*#[ \t]*elif[ \t]+defined[ \t]*\\(?[ \t]*EMBER_CUDA_EMULATED[ \t]*\\)?[ \t]*$")
      list(POP_BACK _stack)
      list(APPEND _stack 1)
    elseif(_line MATCHES "^[ \t]*#[ \t]*(elif|else)")
      list(POP_BACK _stack)
      list(APPEND _stack 0)
    elseif(_line MATCHES "^[ \t]*#[ \t]*endif")
      list(POP_BACK _stack)
    elseif(_line MATCHES "^[ \t]*#[ \t]*include[ \t]*[\"<]cuda_emulator/")
      if(NOT 1 IN_LIST _stack)
        file(RELATIVE_PATH _rel "${EMBER_SOURCE_DIR}" "${_file}")
        string(STRIP "${_line}" _line)
        list(APPEND _bad "  ${_rel}: ${_line}")
      endif()
    endif()
  endforeach()
endforeach()
if(_bad)
  list(JOIN _bad "\n" _bad)
  message(FATAL_ERROR "The CUDA emulator is included outside `#if defined(EMBER_CUDA_EMULATED)`; "
                      "only the emulated build may reach it (cmake/EmberEmulatorIncludes.cmake):\n${_bad}")
endif()
if(STAMP)
  file(TOUCH "${STAMP}")
endif()
