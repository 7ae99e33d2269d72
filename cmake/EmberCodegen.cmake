# Code generation flags for Ember's own targets: the instruction set (EMBER_NATIVE), no
# floating-point contraction, and the workaround for a known miscompile when the canaries
# below catch one. Everything here is a directory-scoped compile option: it reaches every
# target this project builds (library, tests, benchmarks, examples) and no consumer of the
# installed package, whose exported targets carry no -march or -f flag of ours.
#
# Sets EMBER_CODEGEN_FLAGS (the C++ flags applied) and EMBER_CANARY_SUMMARY (the one line
# configure prints).

set(EMBER_MISCOMPILE_WORKAROUND "AUTO" CACHE STRING
  "AUTO: apply a workaround when a miscompile canary fails; OFF: keep the compiler's output (for measuring the workaround only)")
set_property(CACHE EMBER_MISCOMPILE_WORKAROUND PROPERTY STRINGS AUTO OFF)

# The instruction set. Native: the build machine's (checked by the canaries). Portable:
# x86-64-v3 (AVX2, FMA, BMI2; Haswell and Zen 1 onwards), so the package runs on any such CPU.
set(_ember_isa "")
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  include(CheckCXXCompilerFlag)
  if(EMBER_NATIVE)
    check_cxx_compiler_flag(-march=native EMBER_HAS_MARCH_NATIVE)
    if(EMBER_HAS_MARCH_NATIVE)
      set(_ember_isa -march=native)
    endif()
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    check_cxx_compiler_flag(-march=x86-64-v3 EMBER_HAS_MARCH_X86_64_V3)
    if(EMBER_HAS_MARCH_X86_64_V3)
      set(_ember_isa -march=x86-64-v3)
    endif()
  endif()
  # GCC and clang contract x + y * z into a fused multiply-add whenever the target has FMA,
  # even in ISO mode, and GCC ignores #pragma STDC FP_CONTRACT in C++: without this the CPU's
  # Philox draws round differently from CUDA's (docs/DESIGN.md, Random numbers).
  set(_ember_base ${_ember_isa} -ffp-contract=off)
else()
  set(_ember_base "")
endif()

# The canaries (cmake/canaries/*.cpp): small programs that known miscompiles get wrong, built
# with the exact compiler and flags of this build type and run. Each returns 0 when right.
set(_ember_canaries slp_double_broadcast slp_int64_broadcast)

# Runs every canary with FLAGS; sets OUT to PASS, FAIL (a wrong answer) or NORUN (did not
# build or could not run, e.g. AVX-512 code on a host without it).
function(_ember_run_canaries OUT FLAGS)
  # try_run compiles with CMAKE_CXX_FLAGS and the flags of CMAKE_TRY_COMPILE_CONFIGURATION:
  # this build type's, so the canary sees exactly what Ember's sources will.
  set(CMAKE_TRY_COMPILE_CONFIGURATION "${CMAKE_BUILD_TYPE}")
  separate_arguments(_flag_list UNIX_COMMAND "${FLAGS}")
  string(MD5 _key "${CMAKE_CXX_FLAGS} ${CMAKE_BUILD_TYPE} ${FLAGS}")
  set(_result PASS)
  foreach(_canary IN LISTS _ember_canaries)
    # try_run caches its result variables: one name per canary and flag set.
    set(_var "EMBER_CANARY_${_canary}_${_key}")
    try_run(${_var}_RUN ${_var}_BUILT "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/ember_canaries/${_canary}"
      "${CMAKE_CURRENT_SOURCE_DIR}/cmake/canaries/${_canary}.cpp"
      COMPILE_DEFINITIONS ${_flag_list} CXX_STANDARD 17)
    if(NOT ${_var}_BUILT OR NOT "${${_var}_RUN}" MATCHES "^[0-9]+$")
      set(_result NORUN)
    elseif(NOT ${_var}_RUN EQUAL 0)
      set(_result FAIL)
      break()
    endif()
  endforeach()
  set(${OUT} ${_result} PARENT_SCOPE)
endfunction()

# Whether FLAGS enable AVX-512 (the case the known miscompile needs).
function(_ember_flags_enable_avx512 OUT FLAGS)
  set(_src "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/ember_canaries/avx512_probe.cpp")
  file(WRITE "${_src}" "#ifndef __AVX512F__\n#error no AVX-512\n#endif\nint main() { return 0; }\n")
  set(CMAKE_TRY_COMPILE_CONFIGURATION "${CMAKE_BUILD_TYPE}")
  separate_arguments(_flag_list UNIX_COMMAND "${FLAGS}")
  try_compile(_has "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/ember_canaries/avx512_probe"
    "${_src}" COMPILE_DEFINITIONS ${_flag_list})
  set(${OUT} ${_has} PARENT_SCOPE)
endfunction()

list(JOIN _ember_base " " _ember_base_str)
string(TOUPPER "${CMAKE_BUILD_TYPE}" _ember_cfg)
string(STRIP "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_ember_cfg}} ${_ember_base_str}" _ember_shown)
list(JOIN _ember_canaries ", " _ember_canary_names)
set(_ember_workaround "")
if(CMAKE_CROSSCOMPILING)
  set(_ember_status NORUN)
else()
  _ember_run_canaries(_ember_status "${_ember_base_str}")
endif()
if(_ember_status STREQUAL "PASS")
  set(_ember_outcome "passed; no workaround needed")
elseif(_ember_status STREQUAL "FAIL" AND EMBER_MISCOMPILE_WORKAROUND STREQUAL "OFF")
  set(_ember_outcome "FAILED; workaround disabled (EMBER_MISCOMPILE_WORKAROUND=OFF): this build computes wrong results")
elseif(_ember_status STREQUAL "FAIL")
  # Cheapest first: keep AVX-512 and turn off only the SLP vectorizer; else drop AVX-512.
  foreach(_candidate -fno-tree-slp-vectorize -mno-avx512f)
    _ember_run_canaries(_ember_retry "${_ember_base_str} ${_candidate}")
    if(_ember_retry STREQUAL "PASS")
      set(_ember_workaround ${_candidate})
      break()
    endif()
  endforeach()
  if(NOT _ember_workaround)
    message(FATAL_ERROR "Ember: miscompile canaries (${_ember_canary_names}) fail with ${CMAKE_CXX_COMPILER_ID} "
      "${CMAKE_CXX_COMPILER_VERSION} and flags '${_ember_shown}', and no known workaround fixes them; "
      "use another compiler or -DEMBER_NATIVE=OFF")
  endif()
  set(_ember_outcome "FAILED; workaround applied: ${_ember_workaround}")
else()
  # The canaries could not run here (cross-compiling, or AVX-512 flags on a host without
  # AVX-512). GCC 12 with AVX-512 is the known bad pair, so it gets the workaround unverified.
  _ember_flags_enable_avx512(_ember_avx512 "${_ember_base_str}")
  if(_ember_avx512 AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13
     AND NOT EMBER_MISCOMPILE_WORKAROUND STREQUAL "OFF")
    set(_ember_workaround -fno-tree-slp-vectorize)
    set(_ember_outcome "could not run (no AVX-512 on this host?); GCC < 13 with AVX-512, workaround applied unverified: ${_ember_workaround}")
  else()
    set(_ember_outcome "could not run (cross-compiling or an instruction set this host lacks); no workaround")
  endif()
endif()

set(EMBER_CODEGEN_FLAGS ${_ember_base} ${_ember_workaround})
set(EMBER_CANARY_SUMMARY
  "Ember: miscompile canaries (${_ember_canary_names}) with ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} '${_ember_shown}': ${_ember_outcome}")
message(STATUS "${EMBER_CANARY_SUMMARY}")
# Recorded so scripts and tests can check what configure decided.
set(EMBER_CANARY_SUMMARY "${EMBER_CANARY_SUMMARY}" CACHE INTERNAL "The canary line configure printed")
set(EMBER_CODEGEN_FLAGS_APPLIED "${EMBER_CODEGEN_FLAGS}" CACHE INTERNAL "C++ code generation flags of Ember's targets")

add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${EMBER_CODEGEN_FLAGS}>")
# nvcc's host compiler gets the same contraction rule; device code states its roundings
# itself (__dadd_rn/__dmul_rn in kernels/philox.h), so --fmad stays on for speed.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-ffp-contract=off>")
endif()

# No path of the machine that builds: file names in __FILE__ (the CUDA error checks name the
# file that failed), assert and debug information are relative to the source folder, so the
# built library holds no absolute path of the source or the build tree (CI checks it with
# strings: .ci/no_build_paths.sh). Headers are included through build/include/ember, a link to
# the source folder, so that prefix maps to "." too. The most specific prefix comes last: GCC
# applies the last option that matches, clang 16 the longest prefix.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  check_cxx_compiler_flag(-ffile-prefix-map=/ember=. EMBER_HAS_FILE_PREFIX_MAP)
  if(EMBER_HAS_FILE_PREFIX_MAP)
    set(EMBER_FILE_PREFIX_MAPS
      "-ffile-prefix-map=${CMAKE_CURRENT_SOURCE_DIR}=."
      "-ffile-prefix-map=${CMAKE_CURRENT_BINARY_DIR}=."
      "-ffile-prefix-map=${CMAKE_CURRENT_BINARY_DIR}/include/ember=.")
    add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${EMBER_FILE_PREFIX_MAPS}>")
    # nvcc has no option of its own for this; its host compiler preprocesses both passes.
    list(TRANSFORM EMBER_FILE_PREFIX_MAPS PREPEND "-Xcompiler=" OUTPUT_VARIABLE _ember_cuda_prefix_maps)
    add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:${_ember_cuda_prefix_maps}>")
  endif()
endif()

# The AVX512_BF16 kernel (kernels/cpu/bf16_gemm_avx512.cpp) is compiled for AVX-512 in every
# x86-64 build, native or portable, and runs only where the CPU reports the instruction at run
# time (cpu::cpu_has_avx512_bf16). Sets EMBER_AVX512_BF16_FLAGS (empty: the kernel is left out).
set(EMBER_AVX512_BF16_FLAGS "")
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  check_cxx_compiler_flag("-mavx512f -mavx512bw -mavx512vl -mavx512bf16" EMBER_HAS_AVX512_BF16_FLAGS)
  if(EMBER_HAS_AVX512_BF16_FLAGS)
    set(EMBER_AVX512_BF16_FLAGS -mavx512f -mavx512bw -mavx512vl -mavx512bf16)
  endif()
endif()
