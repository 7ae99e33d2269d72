// Catalog cases of scaled_dot_product_attention: each mask kind, causal with L == S and
// L != S, broadcast batch dims and masks, strided inputs, no keys, and sizes past the CPU's
// 64-query and 64-key blocks and the CUDA row kernels' 32- and 1024-key block choices.
#include "support/op_catalog_args.h"

namespace ember::test {
namespace {

using namespace catalog;
using Args = const std::vector<Tensor>&;

OpSpec sdpa(const std::string& label, std::vector<ArgSpec> args,
            std::function<Tensor(const std::vector<Tensor>&)> fn) {
  return OpSpec{label, "scaled_dot_product_attention", std::move(args), std::move(fn)};
}

// query, key and value of [batch..., L, E], [batch..., S, E], [batch..., S, Ev].
std::vector<ArgSpec> qkv(Shape batch, int64_t L, int64_t S, int64_t E, int64_t Ev) {
  auto with = [&](int64_t rows, int64_t cols) {
    Shape s = batch;
    s.push_back(rows);
    s.push_back(cols);
    return s;
  };
  return {f("query", with(L, E), -2, 2), f("key", with(S, E), -2, 2), f("value", with(S, Ev))};
}

std::vector<ArgSpec> plus(std::vector<ArgSpec> args, ArgSpec extra) {
  args.push_back(std::move(extra));
  return args;
}

}  // namespace

std::vector<OpSpec> attention_cases() {
  std::vector<OpSpec> ops;
  ops.push_back(sdpa("sdpa_plain", qkv({2, 3}, 5, 6, 4, 3),
                     [](Args a) { return scaled_dot_product_attention(a[0], a[1], a[2]); }));
  ops.push_back(sdpa("sdpa_scale", qkv({2}, 3, 4, 2, 2), [](Args a) {
    return scaled_dot_product_attention(a[0], a[1], a[2], Tensor(), 0.0, false, 0.3);
  }));
  ops.push_back(sdpa("sdpa_causal_square", qkv({2}, 4, 4, 3, 2), [](Args a) {
    return scaled_dot_product_attention(a[0], a[1], a[2], Tensor(), 0.0, true);
  }));
  // Top-left alignment: the last rows of a tall one see every key, a wide one's first rows few.
  ops.push_back(sdpa("sdpa_causal_tall", qkv({2}, 6, 4, 3, 2), [](Args a) {
    return scaled_dot_product_attention(a[0], a[1], a[2], Tensor(), 0.0, true);
  }));
  ops.push_back(sdpa("sdpa_causal_wide", qkv({2}, 3, 7, 3, 2), [](Args a) {
    return scaled_dot_product_attention(a[0], a[1], a[2], Tensor(), 0.0, true);
  }));
  // A random bool mask: with 6 keys a row is now and then fully masked (zeros on every device).
  ops.push_back(sdpa("sdpa_bool_mask", plus(qkv({2, 2}, 5, 6, 4, 3), boolean("attn_mask", {2, 2, 5, 6})),
                     [](Args a) { return scaled_dot_product_attention(a[0], a[1], a[2], a[3]); }));
  // A padding mask [N, 1, 1, S]: broadcast over heads and queries.
  ops.push_back(sdpa("sdpa_bool_mask_padding",
                     plus(qkv({2, 3}, 4, 5, 2, 3), boolean("attn_mask", {2, 1, 1, 5})),
                     [](Args a) { return scaled_dot_product_attention(a[0], a[1], a[2], a[3]); }));
  ops.push_back(sdpa("sdpa_additive_mask", plus(qkv({2, 2}, 5, 6, 4, 3), fixed("attn_mask", {5, 6}, -2, 2)),
                     [](Args a) { return scaled_dot_product_attention(a[0], a[1], a[2], a[3]); }));
  // The batch dims broadcast: keys shared by the batch, values by every head (a 2-D value).
  ops.push_back(sdpa("sdpa_broadcast_batch",
                     {f("query", {2, 3, 4, 2}, -2, 2), f("key", {3, 5, 2}, -2, 2), f("value", {5, 3})},
                     [](Args a) { return scaled_dot_product_attention(a[0], a[1], a[2]); }));
  // Heads taken from [N, L, H, E] by a transpose, and a narrowed value.
  ops.push_back(sdpa(
      "sdpa_strided",
      {f("query", {2, 4, 3, 2}, -2, 2), f("key", {2, 5, 3, 2}, -2, 2), f("value", {2, 3, 5, 4})}, [](Args a) {
        return scaled_dot_product_attention(a[0].transpose(1, 2), a[1].transpose(1, 2), a[2].narrow(3, 1, 2));
      }));
  // One sequence's heads split from [1, L, H * E] as BERT splits them: the batch entries' rows
  // interleave, read in place, and the output is written in that layout (on CUDA, through a
  // dense copy); causal too, and a value head size other than the query's.
  ops.push_back(
      sdpa("sdpa_interleaved_heads",
           {f("query", {1, 6, 12}, -2, 2), f("key", {1, 6, 12}, -2, 2), f("value", {1, 6, 9})}, [](Args a) {
             auto heads = [](const Tensor& t) { return t.reshape({1, 6, 3, -1}).transpose(1, 2); };
             return scaled_dot_product_attention(heads(a[0]), heads(a[1]), heads(a[2]), Tensor(), 0.0, true)
                 .transpose(1, 2)
                 .reshape({1, 6, 9});
           }));
  // No keys: every row is fully masked, zeros.
  ops.push_back(sdpa("sdpa_no_keys", qkv({2}, 3, 0, 2, 2),
                     [](Args a) { return scaled_dot_product_attention(a[0], a[1], a[2]); }));
  // 70 queries and 40 keys, causal: two CPU query blocks, the second partly past the keys; 128
  // threads a row on CUDA.
  ops.push_back(sdpa("sdpa_blocks_causal", qkv({1}, 70, 40, 3, 2), [](Args a) {
    return scaled_dot_product_attention(a[0], a[1], a[2], Tensor(), 0.0, true);
  }));
  // 1100 keys: 18 CPU key blocks, 512 threads a row on CUDA.
  ops.push_back(sdpa("sdpa_wide_rows", qkv({1}, 3, 1100, 2, 2),
                     [](Args a) { return scaled_dot_product_attention(a[0], a[1], a[2]); }));
  return ops;
}

}  // namespace ember::test
