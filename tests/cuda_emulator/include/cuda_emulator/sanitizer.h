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
