# Warnings for Ember's own code; EMBER_WERROR turns them into errors (CI does).
function(ember_set_warnings target)
  set(_w -Wall -Wextra)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports false -Wmaybe-uninitialized inside its own AVX-512 headers when Eigen
    # code is inlined with -march=native (DESIGN.md, Warnings).
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
