#pragma once
// What every miscompile canary shares. A canary is a program that a known compiler bug gets
// wrong: main returns 0 when the result is right. Configure builds and runs each one with the
// exact flags of the build (cmake/EmberCodegen.cmake); tests/kernels/toolchain_canary_test.cpp
// runs the same functions inside the test binary (EMBER_CANARY_NO_MAIN).
#include <vector>

// noipa: the caller must not learn the constant through inter-procedural analysis, or it
// folds the check to true while the miscompiled store stays wrong.
#if defined(__clang__)
#define EMBER_CANARY_NOINLINE __attribute__((noinline))
#elif defined(__GNUC__)
#define EMBER_CANARY_NOINLINE __attribute__((noipa))
#else
#define EMBER_CANARY_NOINLINE
#endif

#ifdef EMBER_CANARY_NO_MAIN
#define EMBER_CANARY_MAIN(ok)
#else
#define EMBER_CANARY_MAIN(ok) \
  int main() { return ok() ? 0 : 1; }
#endif
