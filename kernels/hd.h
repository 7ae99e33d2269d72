#pragma once
// EMBER_HD marks code that compiles for both the host and CUDA devices.
#if defined(__CUDACC__)
#define EMBER_HD __host__ __device__
#define EMBER_HD_INLINE __host__ __device__ __forceinline__
#define EMBER_HD_ALWAYS_INLINE __host__ __device__ __forceinline__
#else
#define EMBER_HD
#define EMBER_HD_INLINE inline
// Inlined on the host too, whatever its size: elementwise math a loop must see to vectorise.
#define EMBER_HD_ALWAYS_INLINE inline __attribute__((always_inline))
#endif
