#pragma once
// EMBER_EMULATION_ASAN is defined when AddressSanitizer instruments this translation unit
// (GCC says so with __SANITIZE_ADDRESS__, Clang through __has_feature).
#if defined(__SANITIZE_ADDRESS__)
#define EMBER_EMULATION_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_EMULATION_ASAN 1
#endif
#endif

// EMBER_EMULATION_TSAN likewise for ThreadSanitizer (__SANITIZE_THREAD__ for GCC), or given
// by the build for the scheduler's files, which TSan does not instrument (CMakeLists.txt).
#if defined(EMBER_EMULATION_TSAN)
#elif defined(__SANITIZE_THREAD__)
#define EMBER_EMULATION_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMBER_EMULATION_TSAN 1
#endif
#endif
