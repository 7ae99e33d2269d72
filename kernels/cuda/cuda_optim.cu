// Fused multi-tensor optimizer steps (SGD with momentum, Adam/AdamW) with PyTorch's
// formulas (kernels/optim_math.h, shared with the CPU): one launch updates many parameters,
// each block working on one chunk of one tensor; the tensors' pointers travel in the
// kernel's parameter block (no host-to-device copy per step).
#include <array>
#include <vector>

#include "ember/core/dtype_dispatch.h"
#include "ember/kernels/cuda/cuda_loops.cuh"
#include "ember/kernels/optim_math.h"

namespace ember {
namespace {

using cuda_detail::kThreads;

constexpr int kMaxTensors = 24;
constexpr int kMaxBlocks = 320;
constexpr int64_t kChunk = 65536;

// Kept under the 4 KiB kernel parameter limit: 4 lists x 24 pointers, 24 sizes, 320 x 2 ints.
template <class T, int L>
struct TensorLists {
  T* ptr[L][kMaxTensors];
  int64_t size[kMaxTensors];
  int block_tensor[kMaxBlocks];
  int block_chunk[kMaxBlocks];
};

#if defined(EMBER_CUDA_EMULATED)
// The emulator checks these pointers like direct kernel arguments (cuda_emulator/launch.h).
template <class T, int L>
std::vector<const void*> emulated_pointers(const TensorLists<T, L>& tl) {
  std::vector<const void*> p;
  for (int k = 0; k < L; ++k)
    for (int t = 0; t < kMaxTensors; ++t) p.push_back(tl.ptr[k][t]);
  return p;
}
#endif

// ---------------------------------------------------------------------------------------
// kernels

// The tensor and element range of this block's chunk.
struct Chunk {
  int t;
  int64_t lo, hi;
};
template <class T, int L>
__device__ __forceinline__ Chunk chunk_of(const TensorLists<T, L>& tl) {
  const int t = tl.block_tensor[blockIdx.x];
  const int64_t lo = tl.block_chunk[blockIdx.x] * kChunk;
  return {t, lo, cuda_detail::min64(lo + kChunk, tl.size[t])};
}

// Lists: params, grads, momentum buffers (null without momentum). The per-element math is
// kernels/optim_math.h's, the CPU backend's too.
template <class T>
__global__ void sgd_kernel(TensorLists<T, 3> tl, SgdParams o) {
  const Chunk c = chunk_of(tl);
  T* p = tl.ptr[0][c.t];
  const T* g = tl.ptr[1][c.t];
  T* buf = tl.ptr[2][c.t];
  for (int64_t i = c.lo + threadIdx.x; i < c.hi; i += blockDim.x)
    fn::sgd_update(p[i], g[i], buf ? buf + i : nullptr, o);
}

// Lists: params, grads, exp_avg, exp_avg_sq.
template <class T>
__global__ void adam_kernel(TensorLists<T, 4> tl, AdamParams o, fn::AdamConstants k) {
  const Chunk c = chunk_of(tl);
  T* p = tl.ptr[0][c.t];
  const T* g = tl.ptr[1][c.t];
  T* m = tl.ptr[2][c.t];
  T* v = tl.ptr[3][c.t];
  for (int64_t i = c.lo + threadIdx.x; i < c.hi; i += blockDim.x)
    fn::adam_update(p[i], g[i], m[i], v[i], o, k);
}

// ---------------------------------------------------------------------------------------
// launchers

// Contiguous stand-ins for non-contiguous tensors, copied back after the step.
struct Staged {
  std::vector<Tensor> use;
  std::vector<std::pair<Tensor, Tensor>> write_back;  // (original, stand-in)
};

// Backend::contiguous makes the stand-in; the ones the step writes are remembered.
Tensor stage(CudaBackend& be, const Tensor& t, bool written, Staged& st) {
  Tensor c = be.contiguous(t);
  if (written && !c.is_same(t)) st.write_back.emplace_back(t, c);
  return c;
}

// Launches kernel over every tensor of `lists` (L lists of equal length, one dtype T), in
// blocks of at most kMaxTensors tensors and kMaxBlocks chunks.
template <class T, int L, class Launch>
void for_each_chunk(const std::vector<std::array<Tensor, L>>& lists, const Launch& launch) {
  TensorLists<T, L> tl{};
  int nt = 0, nb = 0;
  for (const auto& row : lists) {
    const int64_t n = row[0].numel();
    if (n == 0) continue;
    if (nt == kMaxTensors) {
      launch(tl, nb);
      nt = nb = 0;
    }
    int slot = nt++;
    for (int k = 0; k < L; ++k)
      tl.ptr[k][slot] = row[k].defined() ? static_cast<T*>(row[k].raw_data()) : nullptr;
    tl.size[slot] = n;
    const int64_t chunks = (n + kChunk - 1) / kChunk;
    for (int64_t c = 0; c < chunks; ++c) {
      if (nb == kMaxBlocks) {
        launch(tl, nb);
        // Carry on with the current tensor as the first of the next launch.
        for (int k = 0; k < L; ++k) tl.ptr[k][0] = tl.ptr[k][slot];
        tl.size[0] = tl.size[slot];
        slot = 0;
        nt = 1;
        nb = 0;
      }
      tl.block_tensor[nb] = slot;
      tl.block_chunk[nb] = static_cast<int>(c);
      ++nb;
    }
  }
  if (nb > 0) launch(tl, nb);
}

void check_lists(const char* op, const std::vector<Tensor>& params, std::initializer_list<size_t> sizes) {
  for (size_t s : sizes)
    if (s != params.size()) raise<ValueError>(op, ": parameter, gradient and state lists differ in length");
  for (const Tensor& t : params)
    if (!is_floating(t.dtype())) raise<DTypeError>(op, " does not support dtype ", dtype_name(t.dtype()));
}

}  // namespace

void CudaBackend::sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                           const std::vector<Tensor>& momentum, const SgdParams& p) {
  const bool has_momentum = p.momentum != 0;
  check_lists("sgd_step", params, {grads.size(), has_momentum ? momentum.size() : params.size()});
  if (params.empty()) return;
  const int dev = params[0].device().index;
  CudaDeviceGuard guard(dev);
  Staged st;
  for (DType dt : {kFloat32, kFloat64}) {
    std::vector<std::array<Tensor, 3>> lists;
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].dtype() != dt) continue;
      lists.push_back({stage(*this, params[i], true, st), stage(*this, grads[i], false, st),
                       has_momentum ? stage(*this, momentum[i], true, st) : Tensor()});
    }
    if (lists.empty()) continue;
    EMBER_DISPATCH_FLOATING(dt, "sgd_step", [&] {
      using T = scalar_t;
      for_each_chunk<T, 3>(lists, [&](const TensorLists<T, 3>& tl, int blocks) {
        EMBER_LAUNCH(sgd_kernel, blocks, kThreads, 0, cuda_detail::stream(dev), tl, p);
        EMBER_CUDA_LAUNCH_CHECK();
      });
    });
  }
  for (auto& [orig, c] : st.write_back) copy(orig, c);
}

void CudaBackend::adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                            const std::vector<Tensor>& exp_avg, const std::vector<Tensor>& exp_avg_sq,
                            const AdamParams& p) {
  check_lists("adam_step", params, {grads.size(), exp_avg.size(), exp_avg_sq.size()});
  if (params.empty()) return;
  const int dev = params[0].device().index;
  CudaDeviceGuard guard(dev);
  if (p.step < 1) raise<ValueError>("adam_step: step must be >= 1, got ", p.step);
  const fn::AdamConstants k = fn::adam_constants(p);
  Staged st;
  for (DType dt : {kFloat32, kFloat64}) {
    std::vector<std::array<Tensor, 4>> lists;
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].dtype() != dt) continue;
      lists.push_back({stage(*this, params[i], true, st), stage(*this, grads[i], false, st),
                       stage(*this, exp_avg[i], true, st), stage(*this, exp_avg_sq[i], true, st)});
    }
    if (lists.empty()) continue;
    EMBER_DISPATCH_FLOATING(dt, "adam_step", [&] {
      using T = scalar_t;
      for_each_chunk<T, 4>(lists, [&](const TensorLists<T, 4>& tl, int blocks) {
        EMBER_LAUNCH(adam_kernel, blocks, kThreads, 0, cuda_detail::stream(dev), tl, p, k);
        EMBER_CUDA_LAUNCH_CHECK();
      });
    });
  }
  for (auto& [orig, c] : st.write_back) copy(orig, c);
}

}  // namespace ember
