# Warnings for Ember's own code; EMBER_WERROR turns them into errors (CI does).
function(ember_set_warnings target)
  # -Werror=switch always: every switch over an op enum lists every op (extend/op_kinds.h), so a
  # new op that some table forgets fails to compile instead of misbehaving at run time.
  set(_w -Wall -Wextra -Werror=switch)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports false -Wmaybe-uninitialized inside its own AVX-512 headers when Eigen
    # code is inlined with -march=native (docs/DESIGN.md, Warnings).
    list(APPEND _w -Wno-maybe-uninitialized)
  endif()
  if(EMBER_WERROR)
    list(APPEND _w -Werror)
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${_w}>)
  if(EMBER_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror,-Wno-maybe-uninitialized>)
  endif()
endfunction()
