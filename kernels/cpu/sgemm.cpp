// Single-precision GEMM with a 6 x 16 register block (kernels/cpu/sgemm.h).
//
// The right operand is packed one panel of 16 columns at a time, kKc rows of k deep (16 KiB:
// it stays in L1 while every row block of the output passes over it); the left operand is read
// in place, one broadcast per row and k, so a call costs no O(m k) copy. The register block
// holds 6 x 16 sums in 12 registers, with 2 for the panel's row and 1 for the broadcast: 12
// fused multiply-adds per 2 loads and 6 broadcasts, which two FMA pipes run at full rate.
// Partial blocks (fewer than 6 rows: a template per count; fewer than 16 columns: a scratch
// block) and the taller single blocks of a short call under AVX-512VL (up to 12 rows) run the
// same chain per element, so the bits never depend on the blocking.
// sgemm_prepacked() runs the same loops over panels that sgemm_pack() wrote once.
#include "ember/kernels/cpu/sgemm.h"

#include <algorithm>
#include <array>
#include <utility>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#define EMBER_SGEMM_AVX2 1
#else
#define EMBER_SGEMM_AVX2 0
#endif

namespace ember::cpu {
namespace {

constexpr int kNr = 16;  // columns per panel of the packed right operand

// Packs B(kk, jj) for kk < kc, jj < nn into dst[kk * 16 + jj], zeros for jj >= nn, one element
// at a time (the vector path's remainder, and the layout without AVX2).
void pack_panel_elementwise(float* dst, const float* b, int64_t b_rs, int64_t b_cs, int64_t kc, int64_t nn) {
  for (int64_t kk = 0; kk < kc; ++kk) {
    float* row = dst + kk * kNr;
    for (int64_t jj = 0; jj < nn; ++jj) row[jj] = b[kk * b_rs + jj * b_cs];
    for (int64_t jj = nn; jj < kNr; ++jj) row[jj] = 0.0f;
  }
}

}  // namespace

int64_t sgemm_packed_floats(int64_t k, int64_t n) {
  return (n + kNr - 1) / kNr * kNr * std::max<int64_t>(k, 0);
}

#if EMBER_SGEMM_AVX2
namespace {

constexpr int kMr = 6;
// The most rows one block holds, and the most that run as two equal blocks. With AVX-512VL's 32
// vector registers a 12 x 16 block fits (24 sums, the panel's two halves and a broadcast: 27
// registers). A short call (a sentence's 7 to 16 tokens) is weight-stream bound, and one pass
// over each panel with 14 to 24 chains beat two or three passes of 6-row blocks by 5 to 15%
// (k 384, n 1536 from memory, Zen 4); taller calls keep 6-row blocks, which measured faster there
// (24 rows: 4 x 6 beat 12 + 12 by 5%).
#if defined(__AVX512VL__)
constexpr int kMaxRows = 12;
constexpr int kPairRows = 16;
#else
constexpr int kMaxRows = kMr;
constexpr int kPairRows = 2 * kMr;
#endif
constexpr int64_t kKc = 256;

// Where a register block's sums start.
enum class Start { Zero, Bias, Output };

// The 8 x 8 block at src (row stride ld) transposed into dst (row stride kNr).
inline void transpose8x8(float* dst, const float* src, int64_t ld) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ld);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(dst + i * kNr, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(dst + (i + 4) * kNr, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}

// Packs B(kk, jj) for kk < kc, jj < nn into dst[kk * 16 + jj], zeros for jj >= nn. (Short
// copies are written as vector moves: GCC turns a variable-length memcpy into rep movs, which
// is slow for 64 bytes.)
void pack_panel(float* dst, const float* b, int64_t b_rs, int64_t b_cs, int64_t kc, int64_t nn) {
  if (nn == kNr && b_cs == 1) {
    for (int64_t kk = 0; kk < kc; ++kk) {
      _mm256_storeu_ps(dst + kk * kNr, _mm256_loadu_ps(b + kk * b_rs));
      _mm256_storeu_ps(dst + kk * kNr + 8, _mm256_loadu_ps(b + kk * b_rs + 8));
    }
    return;
  }
  int64_t kk0 = 0;
  if (nn == kNr && b_rs == 1) {  // columns contiguous (a linear's weight): 8 x 8 transposes
    for (; kk0 + 8 <= kc; kk0 += 8) {
      transpose8x8(dst + kk0 * kNr, b + kk0, b_cs);
      transpose8x8(dst + kk0 * kNr + 8, b + kk0 + 8 * b_cs, b_cs);
    }
  }
  pack_panel_elementwise(dst + kk0 * kNr, b + kk0 * b_rs, b_rs, b_cs, kc - kk0, nn);
}

// c[r * ldc + 0..16) for r < Rows = start + sum over kk < kc of A(r, kk) * panel[kk]. With
// Stream, the block also fetches lines of the next panel from `ahead` on, one every `every`
// depths (the row blocks of a panel share its lines): the next panel arrives while this one is
// computed, the memory busy through every block, a few misses in flight, never a burst.
template <int Rows, bool Stream = false>
void block(float* c, int64_t ldc, const float* a, int64_t a_rs, int64_t a_cs, const float* panel, int64_t kc,
           Start start, const float* bias, const char* ahead = nullptr, int64_t every = 1) {
  __m256 acc[Rows][2];
#pragma GCC unroll 12
  for (int r = 0; r < Rows; ++r) {
    if (start == Start::Output) {
      acc[r][0] = _mm256_loadu_ps(c + r * ldc);
      acc[r][1] = _mm256_loadu_ps(c + r * ldc + 8);
    } else if (start == Start::Bias) {
      acc[r][0] = _mm256_loadu_ps(bias);
      acc[r][1] = _mm256_loadu_ps(bias + 8);
    } else {
      acc[r][0] = _mm256_setzero_ps();
      acc[r][1] = _mm256_setzero_ps();
    }
  }
  int64_t countdown = 0;
#pragma GCC unroll 4
  for (int64_t kk = 0; kk < kc; ++kk) {
    if (Stream && --countdown < 0) {
      _mm_prefetch(ahead, _MM_HINT_T0);
      ahead += 64;
      countdown = every - 1;
    }
    const __m256 b0 = _mm256_loadu_ps(panel + kk * kNr);
    const __m256 b1 = _mm256_loadu_ps(panel + kk * kNr + 8);
    const float* ak = a + kk * a_cs;
#pragma GCC unroll 12
    for (int r = 0; r < Rows; ++r) {
      const __m256 av = _mm256_broadcast_ss(ak + r * a_rs);
      acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < Rows; ++r) {
    _mm256_storeu_ps(c + r * ldc, acc[r][0]);
    _mm256_storeu_ps(c + r * ldc + 8, acc[r][1]);
  }
}

using BlockFn = void (*)(float*, int64_t, const float*, int64_t, int64_t, const float*, int64_t, Start,
                         const float*, const char*, int64_t);
// The block of each row count, 1 to kMaxRows (index 0 unused).
template <bool Stream, int... Rows>
constexpr std::array<BlockFn, kMaxRows + 1> blocks_of(std::integer_sequence<int, Rows...>) {
  return {nullptr, &block<Rows + 1, Stream>...};
}
constexpr auto kBlocks = blocks_of<false>(std::make_integer_sequence<int, kMaxRows>());
constexpr auto kStreamingBlocks = blocks_of<true>(std::make_integer_sequence<int, kMaxRows>());

// The right operand's next panel, fetched into the cache a part at a time while this panel's
// row blocks run: a linear's weight is read from memory once per call, and the packing
// otherwise waited on every line of it.
struct NextPanel {
  const char* base = nullptr;                   // none
  int64_t segments = 0, stride = 0, bytes = 0;  // `segments` runs of `bytes` bytes, `stride` apart
  bool packed = false;                          // a prepacked panel: 64 bytes per depth, in order

  // Where the panel of columns [j0, j0 + nn) and depths [k0, k0 + kc) is read from; strided
  // both ways (no unit stride) is not fetched.
  static NextPanel of(const float* b, int64_t b_rs, int64_t b_cs, int64_t k0, int64_t kc, int64_t j0,
                      int64_t nn) {
    const char* at = reinterpret_cast<const char*>(b + k0 * b_rs + j0 * b_cs);
    if (b_rs == 1) return {at, nn, b_cs * 4, kc * 4};
    if (b_cs == 1) return {at, kc, b_rs * 4, nn * 4};
    return {};
  }

  // Where row block `part` of `parts` starts streaming a prepacked panel's lines (each block
  // takes its share, one line every `parts` depths); null for a strided panel.
  const char* stream(int64_t part, int64_t parts) const {
    return packed ? base + part * ((bytes + 63) / 64) / parts * 64 : nullptr;
  }

  void fetch(int64_t part, int64_t parts) const {
    if (!base || packed) return;
    const int64_t per_segment = (bytes + 63) / 64, lines = segments * per_segment;
    for (int64_t l = part * lines / parts; l < (part + 1) * lines / parts; ++l)
      _mm_prefetch(base + (l / per_segment) * stride + (l % per_segment) * 64, _MM_HINT_T0);
  }
};

// The rows of the register block that starts `left` rows before the end of a call of m rows. A
// call of at most kMaxRows rows runs as one block, one of at most kPairRows as two of equal size
// (the first one row taller when m is odd). Taller calls run 6-row blocks, except that the last
// 7 to 9 rows run as two blocks of 3 to 5. A block of 1 or 2 rows holds 2 or 4 chains of fused
// multiply-adds, a quarter or half of what two pipes of 4-cycle FMAs need, so 6 + 2 rows took the
// time of 10 and 4 + 4 take that of 8. (BERT's 128 tokens are 21 x 6 + 2.)
int64_t block_rows(int64_t left, int64_t m) {
  if (m <= kMaxRows) return m;
  if (m <= kPairRows) return left == m ? (m + 1) / 2 : left;
  return left > kMr && left <= kMr + 3 ? (left + 1) / 2 : std::min<int64_t>(kMr, left);
}

int64_t row_blocks(int64_t m) {
  if (m <= kPairRows) return m <= kMaxRows ? 1 : 2;
  return m % kMr != 0 && m % kMr <= 3 ? m / kMr + 1 : (m + kMr - 1) / kMr;
}

// Rows [0, rows) of one output panel of nn <= 16 columns; narrower panels go through a
// 6 x 16 scratch block (the bias and the output read into it, the valid columns written back).
void panel_rows(float* c, int64_t ldc, const float* a, int64_t a_rs, int64_t a_cs, const float* panel,
                int64_t kc, int64_t m, int64_t nn, Start start, const float* bias, const NextPanel& next) {
  const int64_t blocks = row_blocks(m);
  // Runs row block `block` (rows [i0, i0 + rows)) into out, fetching its part of the next panel:
  // streamed through its depths when the panel is prepacked, else fetched up front.
  const auto run_block = [&](int64_t block, int64_t i0, int64_t rows, float* out, int64_t ld,
                             const float* b) {
    const char* ahead = next.stream(block, blocks);
    next.fetch(block, blocks);
    (ahead ? kStreamingBlocks : kBlocks)[rows](out, ld, a + i0 * a_rs, a_rs, a_cs, panel, kc, start, b, ahead,
                                               blocks);
  };
  if (nn == kNr) {
    for (int64_t i0 = 0, block = 0; i0 < m; ++block) {
      const int64_t rows = block_rows(m - i0, m);
      run_block(block, i0, rows, c + i0 * ldc, ldc, bias);
      i0 += rows;
    }
    return;
  }
  alignas(32) float scratch[kMaxRows * kNr];
  alignas(32) float bias16[kNr] = {};
  if (start == Start::Bias)
    for (int64_t j = 0; j < nn; ++j) bias16[j] = bias[j];
  for (int64_t i0 = 0, block = 0, rows = 0; i0 < m; ++block, i0 += rows) {
    rows = block_rows(m - i0, m);
    if (start == Start::Output)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < nn; ++j) scratch[r * kNr + j] = c[(i0 + r) * ldc + j];
    run_block(block, i0, rows, scratch, kNr, bias16);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < nn; ++j) c[(i0 + r) * ldc + j] = scratch[r * kNr + j];
  }
}

// The right operand packed at every call, one panel (kKc deep, 16 wide) at a time.
struct PackOnTheFly {
  PackOnTheFly(const float* b_, int64_t b_rs_, int64_t b_cs_) : b(b_), b_rs(b_rs_), b_cs(b_cs_) {}

  const float* b;
  int64_t b_rs, b_cs;
  alignas(64) float buffer[kKc * kNr];  // (left uninitialized: each panel() writes what it reads)

  const float* panel(int64_t j0, int64_t k0, int64_t kc, int64_t nn) {
    pack_panel(buffer, b + k0 * b_rs + j0 * b_cs, b_rs, b_cs, kc, nn);
    return buffer;
  }
  NextPanel next(int64_t j0, int64_t k0, int64_t kc, int64_t nn) const {
    return NextPanel::of(b, b_rs, b_cs, k0, kc, j0, nn);
  }
};

// The right operand as sgemm_pack() left it: each panel's depths [k0, k0 + kc) are contiguous.
struct Prepacked {
  const float* packed;
  int64_t k;

  const float* at(int64_t j0, int64_t k0) const { return packed + (j0 / kNr) * kNr * k + k0 * kNr; }
  const float* panel(int64_t j0, int64_t k0, int64_t, int64_t) const { return at(j0, k0); }
  NextPanel next(int64_t j0, int64_t k0, int64_t kc, int64_t) const {
    return {reinterpret_cast<const char*>(at(j0, k0)), 1, 0, kc * kNr * 4, true};
  }
};

// The product over panels of 16 columns and depths of kKc, wherever the panels come from.
template <class Panels>
void run(float* c, int64_t ldc, const float* a, int64_t a_rs, int64_t a_cs, Panels& panels, int64_t m,
         int64_t n, int64_t k, bool accumulate, const float* bias) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = bias ? bias[j] : 0.0f;
    return;
  }
  for (int64_t j0 = 0; j0 < n; j0 += kNr) {
    const int64_t nn = std::min<int64_t>(kNr, n - j0);
    for (int64_t k0 = 0; k0 < k; k0 += kKc) {
      const int64_t kc = std::min(kKc, k - k0);
      const float* panel = panels.panel(j0, k0, kc, nn);
      const Start start = (k0 > 0 || accumulate) ? Start::Output : (bias ? Start::Bias : Start::Zero);
      // The next panel: deeper in this one, else the next one from depth 0.
      const int64_t nk0 = k0 + kKc < k ? k0 + kKc : 0, nj0 = k0 + kKc < k ? j0 : j0 + kNr;
      const NextPanel next =
          nj0 < n ? panels.next(nj0, nk0, std::min(kKc, k - nk0), std::min<int64_t>(kNr, n - nj0))
                  : NextPanel{};
      panel_rows(c + j0, ldc, a + k0 * a_cs, a_rs, a_cs, panel, kc, m, nn, start, bias ? bias + j0 : nullptr,
                 next);
    }
  }
}

}  // namespace

bool sgemm_available() { return true; }

void sgemm(float* c, int64_t ldc, const float* a, int64_t a_rs, int64_t a_cs, const float* b, int64_t b_rs,
           int64_t b_cs, int64_t m, int64_t n, int64_t k, bool accumulate, const float* bias) {
  PackOnTheFly panels(b, b_rs, b_cs);
  run(c, ldc, a, a_rs, a_cs, panels, m, n, k, accumulate, bias);
}

void sgemm_pack(float* dst, const float* b, int64_t b_rs, int64_t b_cs, int64_t k, int64_t n) {
  for (int64_t j0 = 0; j0 < n; j0 += kNr)
    pack_panel(dst + j0 * k, b + j0 * b_cs, b_rs, b_cs, k, std::min<int64_t>(kNr, n - j0));
}

void sgemm_prepacked(float* c, int64_t ldc, const float* a, int64_t a_rs, int64_t a_cs, const float* packed,
                     int64_t m, int64_t n, int64_t k, bool accumulate, const float* bias) {
  Prepacked panels{packed, k};
  run(c, ldc, a, a_rs, a_cs, panels, m, n, k, accumulate, bias);
}

#else  // no AVX2 and FMA: callers use Eigen (sgemm_available() is false)

namespace {

// The product one element at a time, B(kk, j) read by b(kk, j).
template <class B>
void product(float* c, int64_t ldc, const float* a, int64_t a_rs, int64_t a_cs, const B& b, int64_t m,
             int64_t n, int64_t k, bool accumulate, const float* bias) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float s = accumulate ? c[i * ldc + j] : (bias ? bias[j] : 0.0f);
      for (int64_t kk = 0; kk < k; ++kk) s += a[i * a_rs + kk * a_cs] * b(kk, j);
      c[i * ldc + j] = s;
    }
}

}  // namespace

bool sgemm_available() { return false; }

void sgemm(float* c, int64_t ldc, const float* a, int64_t a_rs, int64_t a_cs, const float* b, int64_t b_rs,
           int64_t b_cs, int64_t m, int64_t n, int64_t k, bool accumulate, const float* bias) {
  product(
      c, ldc, a, a_rs, a_cs, [&](int64_t kk, int64_t j) { return b[kk * b_rs + j * b_cs]; }, m, n, k,
      accumulate, bias);
}

void sgemm_pack(float* dst, const float* b, int64_t b_rs, int64_t b_cs, int64_t k, int64_t n) {
  for (int64_t j0 = 0; j0 < n; j0 += kNr)
    pack_panel_elementwise(dst + j0 * k, b + j0 * b_cs, b_rs, b_cs, k, std::min<int64_t>(kNr, n - j0));
}

void sgemm_prepacked(float* c, int64_t ldc, const float* a, int64_t a_rs, int64_t a_cs, const float* packed,
                     int64_t m, int64_t n, int64_t k, bool accumulate, const float* bias) {
  product(
      c, ldc, a, a_rs, a_cs,
      [&](int64_t kk, int64_t j) { return packed[(j / kNr) * kNr * k + kk * kNr + j % kNr]; }, m, n, k,
      accumulate, bias);
}

#endif

}  // namespace ember::cpu
