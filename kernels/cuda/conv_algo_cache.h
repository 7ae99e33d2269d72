#pragma once
// cuDNN convolution algorithms are chosen once per problem and remembered: the key is
// everything that can change the choice (shapes, geometry, dtype, device, the TF32 and
// determinism switches, and the operands' alignment: an algorithm found on 256-byte aligned
// buffers may refuse a narrowed view with MISALIGNED_POINTER). Free of CUDA so that the CPU
// tests check it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace ember::cuda_detail {

enum class ConvDirection : int { Forward = 0, BackwardData = 1, BackwardFilter = 2 };

struct ConvKey {
  ConvDirection direction = ConvDirection::Forward;
  int device = 0;
  int dtype = 0;
  int64_t n = 0, c = 0, h = 0, w = 0;  // input
  int64_t k = 0, r = 0, s = 0;         // weight [k, c, r, s]
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  bool tf32 = false, deterministic = false;
  int alignment = 256;  // the largest power of two (up to 256) dividing every operand's address

  auto tie() const {
    return std::tie(direction, device, dtype, n, c, h, w, k, r, s, stride_h, stride_w, pad_h, pad_w,
                    dilation_h, dilation_w, tf32, deterministic, alignment);
  }
  friend bool operator==(const ConvKey& a, const ConvKey& b) { return a.tie() == b.tie(); }
  friend bool operator!=(const ConvKey& a, const ConvKey& b) { return !(a == b); }
};

/// The alignment class of operands at these addresses: the largest power of two up to 256
/// that divides all of them.
inline int operand_alignment(std::initializer_list<const void*> operands) {
  int a = 256;
  for (const void* p : operands)
    while (a > 1 && reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(a)) a /= 2;
  return a;
}

struct ConvKeyHash {
  size_t operator()(const ConvKey& k) const {
    size_t h = 0;
    auto mix = [&h](int64_t v) {
      h ^= std::hash<int64_t>()(v) + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    };
    mix(static_cast<int>(k.direction));
    for (int64_t v : {int64_t(k.device), int64_t(k.dtype), k.n, k.c, k.h, k.w, k.k, k.r, k.s, k.stride_h,
                      k.stride_w, k.pad_h, k.pad_w, k.dilation_h, k.dilation_w, int64_t(k.tf32),
                      int64_t(k.deterministic), int64_t(k.alignment)})
      mix(v);
    return h;
  }
};

/// What was chosen for one key: the cuDNN algorithm, the math type it runs with and the
/// workspace it needs.
struct ConvChoice {
  int algo = 0;
  int math_type = 0;
  size_t workspace = 0;
};

class ConvAlgoCache {
 public:
  std::optional<ConvChoice> find(const ConvKey& key) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  void insert(const ConvKey& key, const ConvChoice& choice) {
    std::lock_guard<std::mutex> lock(mutex_);
    map_[key] = choice;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return map_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<ConvKey, ConvChoice, ConvKeyHash> map_;
};

}  // namespace ember::cuda_detail
