#include "ember/nn/linear.h"

#include <atomic>
#include <mutex>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/linalg.h"
#include "ember/core/ops/linear_pack.h"
#include "ember/nn/init.h"
#include "ember/nn/serialization.h"

namespace ember::nn {

Linear::Linear(int64_t in, int64_t out, bool with_bias)
    : Module("Linear"), in_features(in), out_features(out), pack_(std::make_unique<Pack>()) {
  if (in < 0 || out < 0)
    raise<ValueError>("Linear: feature counts must be >= 0, got in_features=", in, " out_features=", out);
  weight = register_parameter("weight", empty({out, in}));
  if (with_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

// The pack in force and the lock that guards it: forwards read it and may replace a stale one,
// pack_weight swaps it, on any thread. `on` lets a forward of an unpacked Linear skip the lock.
struct Linear::Pack {
  std::atomic<bool> on{false};
  mutable std::mutex mutex;
  std::optional<PackFormat> format;                 // none: the weight is read as it is
  std::shared_ptr<const LinearWeightPack> current;  // shared: a forward keeps the one it read

  void install(std::optional<PackFormat> f, std::shared_ptr<const LinearWeightPack> pack) {
    std::lock_guard<std::mutex> lock(mutex);
    format = f;
    current = std::move(pack);
    on = f.has_value();
  }
};

Linear::~Linear() = default;

namespace {

// A pack of weight. Where the pack holds the values (a backend with a packed form), the forward
// reads only the pack, so the weight's pages that map_file mapped are given back: a served
// checkpoint then costs its packs, not the packs and the weights (release_file_pages).
std::shared_ptr<const LinearWeightPack> make_pack(const Tensor& weight, PackFormat format) {
  auto pack = std::make_shared<const LinearWeightPack>(pack_linear_weight(weight, format));
  if (pack->defined()) release_file_pages(weight);
  return pack;
}

}  // namespace

void Linear::reset_parameters() { init::default_layer_init_(weight, bias); }

void Linear::pack_weight(PackFormat format) {
  // Packed before the lock is taken: an error leaves the pack in force as it was.
  pack_->install(format, make_pack(weight, format));
}

void Linear::pack_weight(bool on) {
  if (on)
    pack_weight(PackFormat::Float32);
  else
    pack_->install(std::nullopt, nullptr);
}

bool Linear::weight_packed() const { return pack_->on; }

std::optional<PackFormat> Linear::packed_format() const {
  std::lock_guard<std::mutex> lock(pack_->mutex);
  return pack_->format;
}

Tensor Linear::forward(const Tensor& input) {
  if (!pack_->on) return linear(input, weight, bias);
  std::shared_ptr<const LinearWeightPack> pack;
  {
    std::lock_guard<std::mutex> lock(pack_->mutex);
    if (pack_->format && !pack_->current->is_current_for(weight))
      pack_->current = make_pack(weight, *pack_->format);
    pack = pack_->current;  // another thread may replace it while this one reads it
  }
  return pack ? linear(input, weight, bias, *pack) : linear(input, weight, bias);
}

std::string Linear::extra_repr() const {
  return ember::detail::concat("in_features=", in_features, ", out_features=", out_features,
                               ", bias=", bias.defined() ? "True" : "False");
}

int64_t pack_linear_weights(Module& root, bool on) {
  if (on) return pack_linear_weights(root, PackFormat::Float32);
  int64_t count = 0;
  for (const std::shared_ptr<Module>& m : root.modules())
    if (auto* linear = dynamic_cast<Linear*>(m.get())) {
      linear->pack_weight(false);
      ++count;
    }
  return count;
}

int64_t pack_linear_weights(Module& root, PackFormat format) {
  // Every pack is made before any is installed, so an error changes none.
  std::vector<std::pair<Linear*, std::shared_ptr<const LinearWeightPack>>> packs;
  for (const std::shared_ptr<Module>& m : root.modules())
    if (auto* linear = dynamic_cast<Linear*>(m.get()))
      packs.emplace_back(linear, make_pack(linear->weight, format));
  for (auto& [linear, pack] : packs) linear->pack_->install(format, std::move(pack));
  return static_cast<int64_t>(packs.size());
}

}  // namespace ember::nn
