// Scaled dot-product attention on the CPU, FlashAttention style: a task takes one batch and
// a block of queries, and walks the keys block by block with an online softmax (each row's
// running maximum and sum; the partial output rescaled when the maximum grows), so it never
// holds more than a block of the L x S scores. It keeps each row's log-sum-exp for the
// backward, which recomputes the probabilities block by block from it.
//
// The backward takes one pass over the key blocks: a task owns a group of them (their dK and
// dV rows, summed over the queries) and a partial dQ, so there are no races; the groups
// follow the shape alone and the partials are added in order, so the sums are deterministic.
// The block products run on the task's thread (kernels/cpu/gemm_into.h).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cpu/cpu_backend.h"
#include "ember/kernels/cpu/exp_lanes.h"
#include "ember/kernels/cpu/gemm_into.h"
#include "ember/kernels/cpu/parallel.h"
#include "ember/kernels/cpu/simd.h"

namespace ember {
namespace {

// Queries or keys per block: 96 for long sequences (a multiple of sgemm's 6 rows and 16
// columns, so no ragged register blocks, and each key block fetched from memory serves more
// queries; 96 x 96 scores of float64 are 72 KiB, in L2 with their operands), 64 up to 512,
// where 96 leaves a ragged last block and more masked scores on the causal diagonal. The
// blocks follow the shape alone.
int64_t block_rows(int64_t n) { return n > 512 ? 96 : 64; }
// The backward's tasks are (batch entry, group of key blocks), each group summing its share of
// dQ into a partial of its own: groups enough for at least this many tasks in all (enough for
// the threads of this kind of machine), and no more, since each partial is a dQ-sized buffer to
// fill and add up (at 4 heads of 4096, eight groups were 29 MB, freshly mapped and zeroed by
// the kernel at every call; with 128 sequences x heads there is one group and no partial).
constexpr int64_t kBackwardTasks = 8;

template <class T>
using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using MapMat = Eigen::Map<Mat<T>>;
// A task's scratch. Eigen's aligned allocation matters for reproducibility: its vectorised exp
// and sums take scalar steps up to the first aligned element, so a block's bits would
// otherwise depend on where the heap put the buffer (and differ with the thread count).
template <class T>
using Buffer = Eigen::Matrix<T, Eigen::Dynamic, 1>;

// A row-major block, as a GEMM operand.
template <class T>
cpu::MatrixView<T> view(const MapMat<T>& m) {
  return {m.data(), m.rows(), m.cols(), m.cols(), 1};
}

int64_t blocks(int64_t n, int64_t block) { return (n + block - 1) / block; }

int64_t grain_for(int64_t macs_per_task) {
  return std::max<int64_t>(1, kMinTaskMacs / std::max<int64_t>(1, macs_per_task));
}

// A [B, rows, cols] operand whose last dim has unit stride: batch entry b's row r starts at
// data + b * batch + r * row (heads split by a transpose interleave their rows, and a batch
// dim broadcast by expand has stride 0, so neither is copied first).
template <class T>
struct Rows {
  const T* data;
  int64_t batch, row;

  explicit Rows(const Tensor& t)
      : data(static_cast<const T*>(t.raw_data())), batch(t.stride(0)), row(t.stride(1)) {}

  // Rows [r0, r0 + n) of batch entry b, `cols` wide.
  cpu::MatrixView<T> block(int64_t b, int64_t r0, int64_t n, int64_t cols) const {
    return {data + b * batch + r0 * row, n, cols, row, 1};
  }
};

// The operands of one call: q [B, L, E], k [B, S, E], v [B, S, Ev] (Rows), and the mask's
// [B, L, S] strides.
template <class T>
struct Problem {
  int64_t B, L, S, E, Ev;
  Rows<T> q, k, v;
  const bool* keep = nullptr;  // bool mask: false masks out
  const T* add = nullptr;      // additive mask
  int64_t mb = 0, ml = 0, ms = 0;
  bool causal = false;
  T scale;
  int64_t block_q, block_k;  // queries and keys per block

  Problem(const Tensor& qt, const Tensor& kt, const Tensor& vt, const Tensor& mask, bool is_causal, double sc)
      : B(qt.size(0)),
        L(qt.size(1)),
        S(kt.size(1)),
        E(qt.size(2)),
        Ev(vt.size(2)),
        q(qt),
        k(kt),
        v(vt),
        causal(is_causal),
        scale(static_cast<T>(sc)),
        block_q(block_rows(L)),
        block_k(block_rows(S)) {
    if (mask.defined()) {
      if (mask.dtype() == kBool)
        keep = static_cast<const bool*>(mask.raw_data());
      else
        add = static_cast<const T*>(mask.raw_data());
      mb = mask.stride(0);
      ml = mask.stride(1);
      ms = mask.stride(2);
    }
  }

  // The keys queries [i0, i0 + bq) may see are [0, key_end).
  int64_t key_end(int64_t i0, int64_t bq) const { return causal ? std::min(S, i0 + bq) : S; }
  // The first query that sees key j0 (top-left causal alignment: key j is seen by queries >= j).
  int64_t query_begin(int64_t j0) const { return causal ? j0 : 0; }

  // Whether the forward may leave scores() unscaled and scale each row in its maximum's pass
  // (scale_and_max): the same products, so the same bits, one pass over the scores fewer. Not
  // with a mask, which applies to scaled scores, nor with a scale that would not keep a causal
  // -inf at -inf.
  bool rows_scale_later() const {
    return !keep && !add && scale > 0 && scale <= std::numeric_limits<T>::max();
  }

  // s = scale * q k^T for queries [i0, i0 + rows) and keys [j0, j0 + cols) of batch b (q k^T
  // alone when `scaled` is false), then masked: -inf where a key is masked out, the additive
  // mask added.
  void scores(MapMat<T>& s, int64_t b, int64_t i0, int64_t j0, bool scaled = true) const {
    constexpr T kMinusInf = -std::numeric_limits<T>::infinity();
    const int64_t bq = s.rows(), bk = s.cols();
    cpu::gemm_into<T>(s.data(), bk, q.block(b, i0, bq, E), k.block(b, j0, bk, E).transposed(), false);
    if (scaled) s *= scale;
    if (keep && !add && ms == 1) {
      // A bool mask with unit stride along the keys (BERT's key mask): a row keeping every key
      // of the block is left as it is, found by memchr for a false byte, far faster than a
      // compare per score (2 % of a 48-token forward with an all-ones mask).
      for (int64_t r = 0; r < bq; ++r) {
        const bool* row = keep + b * mb + (i0 + r) * ml + j0;
        if (!std::memchr(row, 0, static_cast<size_t>(bk))) continue;
        for (int64_t c = 0; c < bk; ++c)
          if (!row[c]) s(r, c) = kMinusInf;
      }
    } else if (keep || add) {
      for (int64_t r = 0; r < bq; ++r) {
        const int64_t base = b * mb + (i0 + r) * ml + j0 * ms;
        for (int64_t c = 0; c < bk; ++c) {
          if (keep && !keep[base + c * ms]) s(r, c) = kMinusInf;
          if (add) s(r, c) += add[base + c * ms];
        }
      }
    } else if (causal) {
      for (int64_t r = 0; r < bq; ++r)
        for (int64_t c = std::max<int64_t>(0, i0 + r + 1 - j0); c < bk; ++c) s(r, c) = kMinusInf;
    }
  }
};

// row[c] *= scale for c < n, and then the row's maximum: NaN when an entry is NaN (a maximum
// that skipped it would take the row for masked and give zeros; PyTorch gives NaN), -inf when
// n is 0.
template <class T>
T scale_and_max(T* row, int64_t n, T scale) {
  Eigen::Map<Eigen::Array<T, 1, Eigen::Dynamic>> a(row, n);
  a *= scale;
  return n > 0 ? a.template maxCoeff<Eigen::PropagateNaN>() : -std::numeric_limits<T>::infinity();
}

// Float in one vector pass (Eigen's NaN-propagating maximum runs a scalar compare per element).
// A maximum is exact whatever the order, so the lanes change no bit.
template <>
float scale_and_max<float>(float* row, int64_t n, float scale) {
  int64_t c = 0;
  float best = -std::numeric_limits<float>::infinity();
  bool nan = false;
#if EMBER_EXP_LANES
  using S = cpu::simd::Lanes<float, 8>;
  const S::V vs = S::set1(scale);
  S::V maxima[4];
  S::M unordered = S::no_mask();
  for (S::V& m : maxima) m = S::set1(best);
  for (; c + 32 <= n; c += 32)
#pragma GCC unroll 4
    for (int v = 0; v < 4; ++v) {
      const S::V x = S::mul(S::load(row + c + 8 * v), vs);
      S::store(row + c + 8 * v, x);
      maxima[v] = S::max(maxima[v], x);
      unordered = S::mask_or(unordered, S::unordered(x, x));
    }
  for (; c + 8 <= n; c += 8) {
    const S::V x = S::mul(S::load(row + c), vs);
    S::store(row + c, x);
    maxima[0] = S::max(maxima[0], x);
    unordered = S::mask_or(unordered, S::unordered(x, x));
  }
  best = cpu::simd::tree_max(S::max(S::max(maxima[0], maxima[1]), S::max(maxima[2], maxima[3])));
  nan = S::any(unordered);
#endif
  for (; c < n; ++c) {
    row[c] *= scale;
    nan = nan || std::isnan(row[c]);
    best = std::max(best, row[c]);
  }
  return nan ? std::numeric_limits<float>::quiet_NaN() : best;
}

// f(std::integral_constant<int, n>()) for n in [1, K]; nothing for 0.
template <int K = 7, class F>
void run_vectors(int64_t n, F&& f) {
  if constexpr (K > 0) {
    if (n == K)
      f(std::integral_constant<int, K>());
    else
      run_vectors<K - 1>(n, f);
  }
}

// row[c] = exp(row[c] - m) for c < n (no row[c] above m), and their sum.
template <class T>
T exp_shifted_sum(T* row, int64_t n, T m) {
  Eigen::Map<Eigen::Array<T, 1, Eigen::Dynamic>> a(row, n);
  a = (a - m).exp();
  return a.sum();
}

// Float by exp_lanes.h's eight vectors in flight, shared with GELU (Eigen's exp runs one vector
// at a time; the batch-1 BERT rows showed no measurable change from the swap). Below
// -86 (a masked key's -inf among them) gives 0, where the true value is under 4.5e-38; NaN
// stays NaN. The sum's order follows n alone.
template <>
float exp_shifted_sum<float>(float* row, int64_t n, float m) {
  int64_t c = 0;
  float total = 0.0f;
#if EMBER_EXP_LANES
  using S = cpu::simd::Lanes<float, 8>;
  const S::V vm = S::set1(m), lowest = S::set1(-86.0f);
  S::V sums = S::zero();
  auto run = [&](auto vectors) {
    constexpr int V = decltype(vectors)::value;
    S::V x[V], e[V];
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) x[v] = S::sub(S::load(row + c + 8 * v), vm);
    cpu::lanes::exp_minus<S>(e, x);  // exp(-|x|) = exp(x): x <= 0
#pragma GCC unroll 8
    for (int v = 0; v < V; ++v) {
      e[v] = S::select(S::unordered(x[v], x[v]), x[v], S::keep(e[v], S::not_less(x[v], lowest)));
      S::store(row + c + 8 * v, e[v]);
      sums = S::add(sums, e[v]);
    }
    c += 8 * V;
  };
  while (c + 64 <= n) run(std::integral_constant<int, 8>());
  // The rest of the whole vectors in one call, all in flight: one call each left every vector
  // waiting on the chain of dependent steps of the one before (a 48-key BERT attention call,
  // 4 heads: 23.8 -> 22.7 us).
  run_vectors((n - c) / 8, run);
  total = cpu::simd::tree_sum(sums);
#endif
  for (; c < n; ++c) {
    const float x = row[c] - m;
    row[c] = x != x ? x : x < -86.0f ? 0.0f : fn::exp_minus(x);
    total += row[c];
  }
  return total;
}

// The forward takes up to this many keys in one block: a row's maximum and sum are then final
// at once, with no rescaling of the partial sums (at BERT's 128 tokens, two blocks of 64 cost a
// second pass over every row and a libm exp per row and block). The scores of a 64-query block
// are then at most 64 KiB. (The backward keeps block_k: its tasks are groups of key blocks.)
constexpr int64_t kForwardOneKeyBlockUpTo = 256;

template <class T>
void forward(const Tensor& out_t, T* lse, const Problem<T>& p) {  // lse null: not wanted
  // out [B, L, Ev] at its strides (unit in Ev).
  T* const out = static_cast<T*>(out_t.raw_data());
  const int64_t out_batch = out_t.stride(0), out_row = out_t.stride(1);
  constexpr T kMinusInf = -std::numeric_limits<T>::infinity();
  const int64_t qblocks = blocks(p.L, p.block_q);
  const int64_t block_k = p.S <= kForwardOneKeyBlockUpTo ? std::max<int64_t>(p.S, 1) : p.block_k;
  const bool scale_later = p.rows_scale_later();
  parallel_for(p.B * qblocks, grain_for(p.block_q * p.S * (p.E + p.Ev)), [&](int64_t lo, int64_t hi) {
    Buffer<T> sbuf(p.block_q * block_k), accbuf(p.block_q * p.Ev), mbuf(p.block_q), lbuf(p.block_q),
        maxbuf(p.block_q);
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t b = t / qblocks, i0 = (t % qblocks) * p.block_q, bq = std::min(p.block_q, p.L - i0);
      MapMat<T> acc(accbuf.data(), bq, p.Ev);
      acc.setZero();
      mbuf.setConstant(kMinusInf);  // running maximum of each row
      lbuf.setZero();               // running sum of exp(score - maximum)
      const int64_t jend = p.key_end(i0, bq);
      for (int64_t j0 = 0; j0 < jend; j0 += block_k) {
        MapMat<T> s(sbuf.data(), bq, std::min(block_k, jend - j0));
        p.scores(s, b, i0, j0, !scale_later);
        // Every row's maximum, then every row's exponentials: a row's maximum, exponentials
        // and sum are a chain of dependent steps, and the rows taken whole one after the other
        // left the core waiting on each chain in turn.
        for (int64_t r = 0; r < bq; ++r)
          maxbuf[r] = scale_and_max(s.row(r).data(), s.cols(), scale_later ? p.scale : T(1));
        for (int64_t r = 0; r < bq; ++r) {
          // A NaN score (a NaN query or key) makes the row NaN.
          const T row_max = maxbuf[r];
          const T m = std::isnan(row_max) ? row_max : std::max(mbuf[r], row_max);
          if (m == kMinusInf) {  // every key so far masked: nothing to add
            s.row(r).setZero();
            continue;
          }
          const T sum = exp_shifted_sum(s.row(r).data(), s.cols(), m);
          if (mbuf[r] == kMinusInf) {  // the row's first keys: its sums are still zero
            lbuf[r] = sum;
          } else {
            const T rescale = std::exp(mbuf[r] - m);
            lbuf[r] = lbuf[r] * rescale + sum;
            acc.row(r) *= rescale;
          }
          mbuf[r] = m;
        }
        cpu::gemm_into<T>(acc.data(), p.Ev, view(s), p.v.block(b, j0, s.cols(), p.Ev), true);
      }
      Eigen::Map<Mat<T>, 0, Eigen::OuterStride<>> o(out + b * out_batch + i0 * out_row, bq, p.Ev,
                                                    Eigen::OuterStride<>(out_row));
      for (int64_t r = 0; r < bq; ++r) {
        if (!(lbuf[r] == 0)) {  // (NaN included)
          o.row(r) = acc.row(r) / lbuf[r];
          if (lse) lse[b * p.L + i0 + r] = mbuf[r] + std::log(lbuf[r]);
        } else {  // every key masked: zeros, as FlashAttention
          o.row(r).setZero();
          if (lse) lse[b * p.L + i0 + r] = kMinusInf;
        }
      }
    }
  });
}

// The backward's shared pieces: the probabilities P and dS = P o (dO V^T - D) of one block
// (dS without the scale, which the callers apply once to their sums).
template <class T>
struct Backward {
  const Problem<T>& p;
  Rows<T> dout;
  const T* lse;
  std::vector<T> D;  // D[b * L + i] = dO_i . O_i (= sum_j P_ij dP_ij)

  // grad_out and out contiguous.
  Backward(const Problem<T>& pr, const Tensor& grad_out_t, const Tensor& out_t, const T* lse_in)
      : p(pr), dout(grad_out_t), lse(lse_in), D(static_cast<size_t>(pr.B * pr.L)) {
    const T *grad_out = static_cast<const T*>(grad_out_t.raw_data()),
            *out = static_cast<const T*>(out_t.raw_data());
    const int64_t Ev = p.Ev;
    parallel_for(p.B * p.L, grain_for(Ev), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        T d = 0;
        for (int64_t e = 0; e < Ev; ++e) d += grad_out[r * Ev + e] * out[r * Ev + e];
        D[r] = d;
      }
    });
  }

  void block(MapMat<T>& P, MapMat<T>& dS, int64_t b, int64_t i0, int64_t j0) const {
    constexpr T kMinusInf = -std::numeric_limits<T>::infinity();
    const int64_t bq = P.rows(), bk = P.cols();
    p.scores(P, b, i0, j0);
    for (int64_t r = 0; r < bq; ++r) {
      const T l = lse[b * p.L + i0 + r];
      if (l == kMinusInf)  // a fully masked row: no probabilities, no gradient
        P.row(r).setZero();
      else
        P.row(r) = (P.row(r).array() - l).exp().matrix();
    }
    cpu::gemm_into<T>(dS.data(), bk, dout.block(b, i0, bq, p.Ev), p.v.block(b, j0, bk, p.Ev).transposed(),
                      false);
    for (int64_t r = 0; r < bq; ++r)
      dS.row(r) = (P.row(r).array() * (dS.row(r).array() - D[b * p.L + i0 + r])).matrix();
  }
};

template <class T>
void backward(T* dq, T* dk, T* dv, const Backward<T>& bw) {
  const Problem<T>& p = bw.p;
  // One pass over the key blocks: each task owns a group of consecutive key blocks, sums their
  // dK and dV rows over the queries, and adds their share of dQ to its group's partial dQ; the
  // partials are added in group order at the end. The groups depend on the shape alone, so the
  // bits do not depend on the thread count, and the scores are computed once (two passes, one
  // owning dK and dV and one dQ, computed them twice: 9 block products instead of 7).
  const int64_t kblocks = blocks(p.S, p.block_k);
  const int64_t rows = p.B * p.L;
  std::fill(dq, dq + rows * p.E, T(0));
  if (kblocks == 0) return;  // no keys: no gradient
  const int64_t per_group =
      blocks(kblocks, std::min(kblocks, blocks(kBackwardTasks, std::max<int64_t>(1, p.B))));
  const int64_t groups = blocks(kblocks, per_group);
  // Group 0 sums into dq itself; the others into partials.
  Buffer<T> partials(std::max<int64_t>(0, groups - 1) * rows * p.E);
  partials.setZero();
  const auto partial = [&](int64_t g) { return g == 0 ? dq : partials.data() + (g - 1) * rows * p.E; };
  const int64_t macs = per_group * p.block_k * p.L * (3 * p.E + 2 * p.Ev);
  parallel_for(p.B * groups, grain_for(macs), [&](int64_t lo, int64_t hi) {
    Buffer<T> pbuf(p.block_q * p.block_k), dsbuf(p.block_q * p.block_k);
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t b = t / groups, g = t % groups;
      T* gq_base = partial(g);
      for (int64_t kb = g * per_group; kb < std::min(kblocks, (g + 1) * per_group); ++kb) {
        const int64_t j0 = kb * p.block_k, bk = std::min(p.block_k, p.S - j0);
        MapMat<T> gk(dk + (b * p.S + j0) * p.E, bk, p.E), gv(dv + (b * p.S + j0) * p.Ev, bk, p.Ev);
        gk.setZero();
        gv.setZero();
        const cpu::MatrixView<T> keys = p.k.block(b, j0, bk, p.E);
        for (int64_t i0 = p.query_begin(j0); i0 < p.L; i0 += p.block_q) {
          const int64_t bq = std::min(p.block_q, p.L - i0);
          MapMat<T> P(pbuf.data(), bq, bk), dS(dsbuf.data(), bq, bk);
          bw.block(P, dS, b, i0, j0);
          cpu::gemm_into<T>(gv.data(), p.Ev, view(P).transposed(), bw.dout.block(b, i0, bq, p.Ev), true);
          cpu::gemm_into<T>(gk.data(), p.E, view(dS).transposed(), p.q.block(b, i0, bq, p.E), true);
          cpu::gemm_into<T>(gq_base + (b * p.L + i0) * p.E, p.E, view(dS), keys, true);
        }
        gk *= p.scale;
      }
    }
  });
  parallel_for(rows, grain_for(groups * p.E), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      T* out = dq + r * p.E;
      for (int64_t g = 1; g < groups; ++g) {
        const T* add = partial(g) + r * p.E;
        for (int64_t e = 0; e < p.E; ++e) out[e] += add[e];
      }
      for (int64_t e = 0; e < p.E; ++e) out[e] *= p.scale;
    }
  });
}

}  // namespace

void CpuBackend::attention(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                           const Tensor& v, const Tensor& mask, bool is_causal, double scale) {
  EMBER_DISPATCH_FLOATING(q.dtype(), "scaled_dot_product_attention", [&] {
    using T = scalar_t;
    const Problem<T> p(q, k, v, mask, is_causal, scale);
    forward<T>(out, lse.defined() ? static_cast<T*>(lse.raw_data()) : nullptr, p);
  });
}

void CpuBackend::attention_backward(const Tensor& grad_q, const Tensor& grad_k, const Tensor& grad_v,
                                    const Tensor& grad_out, const Tensor& q, const Tensor& k, const Tensor& v,
                                    const Tensor& out, const Tensor& lse, const Tensor& mask, bool is_causal,
                                    double scale) {
  EMBER_DISPATCH_FLOATING(q.dtype(), "scaled_dot_product_attention_backward", [&] {
    using T = scalar_t;
    const Problem<T> p(q, k, v, mask, is_causal, scale);
    const Backward<T> bw(p, grad_out, out, static_cast<const T*>(lse.raw_data()));
    backward<T>(static_cast<T*>(grad_q.raw_data()), static_cast<T*>(grad_k.raw_data()),
                static_cast<T*>(grad_v.raw_data()), bw);
  });
}

}  // namespace ember
