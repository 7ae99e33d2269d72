#include "ember/nn/linear.h"

#include <mutex>

#include "ember/core/error.h"
#include "ember/core/ops/factory.h"
#include "ember/core/ops/linalg.h"
#include "ember/core/ops/linear_pack.h"
#include "ember/nn/init.h"

namespace ember::nn {

Linear::Linear(int64_t in, int64_t out, bool with_bias)
    : Module("Linear"), in_features(in), out_features(out) {
  if (in < 0 || out < 0)
    raise<ValueError>("Linear: feature counts must be >= 0, got in_features=", in, " out_features=", out);
  weight = register_parameter("weight", empty({out, in}));
  if (with_bias) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

// The packed weight, and the lock that lets concurrent forwards replace it.
struct Linear::Pack {
  std::mutex mutex;
  std::shared_ptr<const LinearWeightPack> current;  // shared: a forward keeps the one it read
};

Linear::~Linear() = default;

void Linear::reset_parameters() { init::default_layer_init_(weight, bias); }

void Linear::pack_weight(bool on) {
  if (!on) {
    pack_.reset();
    return;
  }
  auto pack = std::make_unique<Pack>();
  pack->current = std::make_shared<const LinearWeightPack>(pack_linear_weight(weight));
  pack_ = std::move(pack);
}

bool Linear::weight_packed() const { return pack_ != nullptr; }

Tensor Linear::forward(const Tensor& input) {
  if (!pack_) return linear(input, weight, bias);
  std::shared_ptr<const LinearWeightPack> pack;
  {
    std::lock_guard<std::mutex> lock(pack_->mutex);
    if (!pack_->current->is_current_for(weight))
      pack_->current = std::make_shared<const LinearWeightPack>(pack_linear_weight(weight));
    pack = pack_->current;  // another thread may replace it while this one reads it
  }
  return linear(input, weight, bias, *pack);
}

std::string Linear::extra_repr() const {
  return ember::detail::concat("in_features=", in_features, ", out_features=", out_features,
                               ", bias=", bias.defined() ? "True" : "False");
}

int64_t pack_linear_weights(Module& root, bool on) {
  int64_t count = 0;
  for (const std::shared_ptr<Module>& m : root.modules())
    if (auto* linear = dynamic_cast<Linear*>(m.get())) {
      linear->pack_weight(on);
      ++count;
    }
  return count;
}

}  // namespace ember::nn
