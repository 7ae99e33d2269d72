#include "support/transformer_parity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>

#include "support/expect.h"

namespace ember::test {

// |x - ref| <= sqrt(K) * (1e-6 + 1e-5 |ref|) for every element (docs/DESIGN.md), K the
// reduction lengths along the longest path from the inputs to the value, summed.
void expect_parity_close(const Tensor& got, const Tensor& ref, double k, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what << " is undefined";
  ASSERT_EQ(got.shape(), ref.shape()) << what;
  const std::vector<double> x = got.cpu().contiguous().to_vector<double>();
  const std::vector<double> r = ref.contiguous().to_vector<double>();
  int64_t bad = 0;
  size_t first = 0;
  double worst = 0, max_err = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double tol = parity_tolerance(k, r[i]);
    const double err = std::fabs(x[i] - r[i]);
    if (!(err <= tol)) {
      if (bad++ == 0) first = i;
    }
    worst = std::fmax(worst, err / tol);
    max_err = std::fmax(max_err, err);
  }
  // EMBER_PARITY_VERBOSE=1 prints every comparison's errors (for reports).
  if (std::getenv("EMBER_PARITY_VERBOSE"))
    std::printf("parity %s: max |error| %.3g, worst error / tolerance %.3g (K = %g)\n", what.c_str(), max_err,
                worst, k);
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << x.size()
                    << " elements outside the tolerance (K = " << k << "); first at " << first << ": "
                    << x[first] << " vs " << r[first] << "; worst error / tolerance " << worst;
}

namespace {

struct Fixture {
  nn::StateDict tensors;
  nn::Metadata meta;

  Tensor at(const std::string& key) const {
    for (const auto& [k, t] : tensors)
      if (k == key) return t;
    ADD_FAILURE() << "the fixture has no tensor " << key;
    return Tensor();
  }
  // "param.*" entries under their PyTorch names.
  nn::StateDict params() const {
    nn::StateDict out;
    for (const auto& [k, t] : tensors)
      if (k.rfind("param.", 0) == 0) out.insert(k.substr(6), t);
    return out;
  }
  int64_t meta_int(const std::string& key) const { return std::stoll(meta.at(key)); }
};

// The scalar PyTorch differentiated: sum(out * grad_weight).
void backward_weighted(const Tensor& out, const Fixture& f) {
  sum(out * f.at("grad_weight").to(out.device())).backward();
}

Tensor input(const Fixture& f, const std::string& name, Device device, bool grad) {
  Tensor t = f.at("input." + name).to(device);
  if (grad) t.requires_grad_(true);
  return t;
}

void check_layer_norm(const Fixture& f, const std::string& name, Device device) {
  const bool affine = name == "layer_norm";
  const Tensor x = input(f, "x", device, true);
  Tensor w, b;
  if (affine) {
    w = f.at("param.weight").to(device).requires_grad_(true);
    b = f.at("param.bias").to(device).requires_grad_(true);
  }
  const Shape normalized = affine ? Shape{16} : Shape{3, 5};
  const Tensor out = layer_norm(x, normalized, w, b, affine ? 1e-5 : 1e-6);
  const double k = 2.0 * static_cast<double>(affine ? 16 : 15);
  expect_parity_close(out, f.at("output"), k, name + " output");
  backward_weighted(out, f);
  expect_parity_close(x.grad(), f.at("grad.input.x"), 2 * k, name + " grad input");
  if (affine) {
    expect_parity_close(w.grad(), f.at("grad.param.weight"), 12, name + " grad weight");
    expect_parity_close(b.grad(), f.at("grad.param.bias"), 12, name + " grad bias");
  }
}

void check_gelu(const Fixture& f, const std::string& name, Device device) {
  const Tensor x = input(f, "x", device, true);
  const Tensor out = gelu(x, name == "gelu" ? "none" : "tanh");
  expect_parity_close(out, f.at("output"), 1, name + " output");
  backward_weighted(out, f);
  expect_parity_close(x.grad(), f.at("grad.input.x"), 1, name + " grad input");
}

void check_sdpa(const Fixture& f, const std::string& name, Device device) {
  const Tensor q = input(f, "q", device, true), k = input(f, "k", device, true),
               v = input(f, "v", device, true);
  Tensor mask;
  if (name.find("mask") != std::string::npos) mask = input(f, "mask", device, false);
  std::optional<double> scale;
  if (name == "sdpa_scale") scale = 0.3;
  const Tensor out = scaled_dot_product_attention(q, k, v, mask, 0.0, name == "sdpa_causal", scale);
  const double kk = 2.0 * static_cast<double>(q.size(-1) + k.size(-2));  // q.k^T, softmax, p.v
  expect_parity_close(out, f.at("output"), kk, name + " output");
  backward_weighted(out, f);
  for (const auto& [arg, t] : {std::pair<const char*, Tensor>{"q", q}, {"k", k}, {"v", v}})
    expect_parity_close(t.grad(), f.at(std::string("grad.input.") + arg), 4 * kk, name + " grad " + arg);
}

void check_params(const nn::Module& m, const Fixture& f, double k, const std::string& name) {
  for (const auto& [path, p] : m.named_parameters())
    expect_parity_close(p.grad(), f.at("grad.param." + path), k, name + " grad " + path);
}

void check_mha(const Fixture& f, const std::string& name, Device device) {
  nn::MultiheadAttention mha(16, 4, 0.0, true, /*batch_first=*/true);
  mha.load_state_dict(f.params());
  mha.to(device);
  const Tensor x = input(f, "x", device, true);
  const auto [out, weights] =
      mha(x, x, x, input(f, "key_padding_mask", device, false), false, input(f, "attn_mask", device, false));
  EXPECT_FALSE(weights.defined());
  const double k = 4.0 * (16 + 16 + 5 + 5);  // in_proj, q.k^T, softmax, p.v, out_proj
  expect_parity_close(out, f.at("output"), k, name + " output");
  backward_weighted(out, f);
  expect_parity_close(x.grad(), f.at("grad.input.x"), 4 * k, name + " grad input");
  check_params(mha, f, 4 * k, name);
}

void check_encoder(const Fixture& f, const std::string& name, Device device) {
  nn::TransformerEncoderLayerOptions o;
  o.d_model = f.meta_int("d_model");
  o.nhead = f.meta_int("nhead");
  o.dim_feedforward = f.meta_int("dim_feedforward");
  o.dropout = 0.0;
  o.activation = f.meta.at("activation");
  o.batch_first = true;
  o.norm_first = f.meta.at("norm_first") == "true";
  const auto layers = f.meta_int("num_layers");
  nn::TransformerEncoder enc(nn::TransformerEncoderLayer(o), layers,
                             o.norm_first ? std::make_shared<nn::LayerNorm>(Shape{o.d_model}) : nullptr);
  enc.load_state_dict(f.params());
  enc.to(device);
  const Tensor x = input(f, "x", device, true);
  const Tensor out = enc(x, Tensor(), input(f, "key_padding_mask", device, false));
  // Per layer: in_proj, q.k^T, softmax and p.v over 6 keys, out_proj, a norm, linear1, linear2, a norm.
  const double per_layer = 3.0 * static_cast<double>(o.d_model) + 16 + 12 +
                           2 * static_cast<double>(o.d_model) + static_cast<double>(o.dim_feedforward);
  const double k = static_cast<double>(layers) * per_layer;
  expect_parity_close(out, f.at("output"), k, name + " output");
  backward_weighted(out, f);
  expect_parity_close(x.grad(), f.at("grad.input.x"), 2 * k, name + " grad input");
  check_params(enc, f, 2 * k, name);
}

}  // namespace

const std::vector<std::string>& transformer_parity_cases() {
  static const std::vector<std::string> names{"layer_norm",
                                              "layer_norm_2d_noaffine",
                                              "gelu",
                                              "gelu_tanh",
                                              "sdpa",
                                              "sdpa_causal",
                                              "sdpa_scale",
                                              "sdpa_bool_mask",
                                              "sdpa_additive_mask",
                                              "sdpa_fully_masked_row",
                                              "multihead_attention",
                                              "transformer_encoder_post_norm",
                                              "transformer_encoder_norm_first"};
  return names;
}

void run_transformer_parity_case(const std::string& name, Device device) {
  Fixture f;
  {
    nn::SafetensorsContents c = nn::load_file_with_metadata(fixture_path(name + ".safetensors"));
    f.tensors = std::move(c.tensors);
    f.meta = std::move(c.metadata);
  }
  if (name.rfind("layer_norm", 0) == 0) return check_layer_norm(f, name, device);
  if (name.rfind("gelu", 0) == 0) return check_gelu(f, name, device);
  if (name.rfind("sdpa", 0) == 0) return check_sdpa(f, name, device);
  if (name == "multihead_attention") return check_mha(f, name, device);
  return check_encoder(f, name, device);
}

}  // namespace ember::test
