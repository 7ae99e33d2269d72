#pragma once
// EMBER_TEST_SANITIZED is defined when a sanitizer instruments this test (GCC says so with
// __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__, Clang through __has_feature): tests that measure
// or bound the process's memory skip then, as shadow memory and freed-memory quarantine change
// what the process holds.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define EMBER_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define EMBER_TEST_SANITIZED 1
#endif
#endif
