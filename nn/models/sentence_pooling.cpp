// Each mode follows sentence-transformers' Pooling.forward operation by operation (the same
// products, sums and clamps), so that its vectors agree to float rounding.
#include "ember/nn/models/sentence_pooling.h"

#include <limits>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/io/json.h"
#include "ember/core/ops/elementwise.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/index.h"
#include "ember/core/ops/reduce.h"
#include "ember/core/ops/views.h"
#include "ember/extend/check.h"

namespace ember::nn::models {
namespace {

using io::json::Value;

constexpr std::pair<PoolingMode, const char*> kModes[] = {
    {PoolingMode::Cls, "cls"},
    {PoolingMode::Max, "max"},
    {PoolingMode::Mean, "mean"},
    {PoolingMode::MeanSqrtLenTokens, "mean_sqrt_len_tokens"},
    {PoolingMode::WeightedMean, "weightedmean"},
    {PoolingMode::LastToken, "lasttoken"},
};

// The older format's flags, in the order sentence-transformers concatenates them.
constexpr std::pair<const char*, PoolingMode> kFlags[] = {
    {"pooling_mode_cls_token", PoolingMode::Cls},
    {"pooling_mode_max_tokens", PoolingMode::Max},
    {"pooling_mode_mean_tokens", PoolingMode::Mean},
    {"pooling_mode_mean_sqrt_len_tokens", PoolingMode::MeanSqrtLenTokens},
    {"pooling_mode_weightedmean_tokens", PoolingMode::WeightedMean},
    {"pooling_mode_lasttoken", PoolingMode::LastToken},
};

[[noreturn]] void bad(const std::string& path, const std::string& key, const char* want, const Value& got) {
  raise<ValueError>("SentencePooling: \"", key, "\" in ", path, " must be ", want, ", got ",
                    io::json::describe(got));
}

PoolingMode mode_named(const Value& v, const std::string& path) {
  constexpr const char* want =
      "a pooling mode (\"cls\", \"max\", \"mean\", \"mean_sqrt_len_tokens\", \"weightedmean\", "
      "\"lasttoken\")";
  if (v.type != Value::Type::String) bad(path, "pooling_mode", want, v);
  for (const auto& [mode, name] : kModes)
    if (v.text == name) return mode;
  bad(path, "pooling_mode", want, v);
}

// The index of the largest entry of each row of w [B, L] (the first one on ties), as [B, 1, H]
// gather indices for hidden.
Tensor row_index(const Tensor& w, int64_t hidden) {
  const int64_t b = w.size(0);
  return argmax(w, 1).reshape({b, 1, 1}).expand({b, 1, hidden});
}

}  // namespace

const char* pooling_mode_name(PoolingMode mode) {
  for (const auto& [m, name] : kModes)
    if (m == mode) return name;
  return "?";
}

SentencePooling SentencePooling::from_json_file(const std::string& path) {
  const Value root = io::json::parse_object_file(path, "SentencePooling");
  SentencePooling p;
  p.modes.clear();
  if (const Value* v = root.find("pooling_mode")) {
    if (v->type == Value::Type::Array) {
      for (const Value& item : v->items) p.modes.push_back(mode_named(item, path));
    } else {
      p.modes.push_back(mode_named(*v, path));
    }
  } else {
    for (const auto& [key, mode] : kFlags) {
      const Value* flag = root.find(key);
      if (!flag) continue;
      if (flag->type != Value::Type::Bool) bad(path, key, "true or false", *flag);
      if (flag->boolean) p.modes.push_back(mode);
    }
  }
  if (p.modes.empty()) raise<ValueError>("SentencePooling: ", path, " names no pooling mode");
  if (const Value* v = root.find("include_prompt")) {
    if (v->type != Value::Type::Bool) bad(path, "include_prompt", "true or false", *v);
    if (!v->boolean)
      raise<ValueError>("SentencePooling: \"include_prompt\" false in ", path,
                        " is not supported (Ember pools every real token)");
  }
  return p;
}

Tensor SentencePooling::operator()(const Tensor& hidden, const Tensor& attention_mask) const {
  constexpr const char* op = "sentence_pooling";
  check_defined(op, {{"hidden", hidden}, {"attention_mask", attention_mask}});
  check_same_device(op, {{"hidden", hidden}, {"attention_mask", attention_mask}});
  check_floating(op, {"hidden", hidden});
  check_ndim(op, {"hidden", hidden}, 3);
  check_ndim(op, {"attention_mask", attention_mask}, 2);
  if (attention_mask.size(0) != hidden.size(0) || attention_mask.size(1) != hidden.size(1))
    raise<ShapeError>("shape mismatch in sentence_pooling: hidden ", shape_str(hidden.shape()),
                      " and attention_mask ", shape_str(attention_mask.shape()), " differ in [B, L]");
  const int64_t h = hidden.size(2), l = hidden.size(1);
  const Tensor mask = unsqueeze(attention_mask.to(hidden.dtype()), -1);  // [B, L, 1]
  Tensor mean_sum, count;  // shared by the mean modes, as sentence-transformers shares them
  std::vector<Tensor> out;
  for (const PoolingMode mode : modes) {
    switch (mode) {
      case PoolingMode::Cls:
        out.push_back(squeeze(gather(hidden, 1, row_index(attention_mask.to(kInt64), h)), 1));
        break;
      case PoolingMode::Max:
        out.push_back(amax(masked_fill(hidden, eq(mask, 0), -std::numeric_limits<double>::infinity()), {1}));
        break;
      case PoolingMode::Mean:
      case PoolingMode::MeanSqrtLenTokens:
        if (!mean_sum.defined()) {
          mean_sum = sum(hidden * mask, {1});
          count = maximum(sum(mask, {1}), 1e-9);
        }
        out.push_back(mode == PoolingMode::Mean ? mean_sum / count : mean_sum / sqrt(count));
        break;
      case PoolingMode::WeightedMean: {
        // Weights 1, 2, ... from the first real token.
        const Tensor first = argmax(attention_mask.to(kInt64), 1).reshape({-1, 1, 1}).to(hidden.dtype());
        const Tensor positions =
            arange(1.0, static_cast<double>(l) + 1, 1, TensorOptions(hidden.dtype()).device(hidden.device()))
                .reshape({1, l, 1});
        const Tensor weights = mask * (positions - first);
        out.push_back(sum(hidden * weights, {1}) / maximum(sum(weights, {1}), 1e-9));
        break;
      }
      case PoolingMode::LastToken: {
        // The last real token: the largest of mask * position (a row with none reads a zero).
        const Tensor positions =
            arange(1.0, static_cast<double>(l) + 1, 1, TensorOptions(kInt64).device(hidden.device()))
                .reshape({1, l});
        const Tensor last = row_index(attention_mask.to(kInt64) * positions, h);
        out.push_back(squeeze(gather(hidden * mask, 1, last), 1));
        break;
      }
    }
  }
  return out.size() == 1 ? out[0] : cat(out, 1);
}

}  // namespace ember::nn::models
