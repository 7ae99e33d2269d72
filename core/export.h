#pragma once
// EMBER_API marks the public API: a shared libember exports only these symbols.
#if defined(EMBER_STATIC)
#define EMBER_API
#elif defined(EMBER_BUILDING_LIBRARY)
#define EMBER_API __attribute__((visibility("default")))
#else
#define EMBER_API __attribute__((visibility("default")))
#endif
