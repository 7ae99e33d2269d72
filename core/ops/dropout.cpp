// dropout and dropout2d: a keep mask drawn from the default Philox generator (uniform draws
// compared with 1 - p, as torch's bernoulli(1 - p)) and scaled by 1 / (1 - p), in one draw
// (RandomKind::Bernoulli); the product with the input is an ordinary mul, so autograd needs
// nothing new. The draws are the
// generator's, so one seed drops the same elements on every device.
#include "ember/core/ops/dropout.h"

#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/core/ops/elementwise.h"
#include "ember/extend/backend.h"
#include "ember/extend/check.h"

namespace ember {
namespace {

// The scaled mask in one pass: 1 / (1 - p) where the uniform draw is below 1 - p.
Tensor draw_mask(const Shape& shape, double p, DType dtype, Device device) {
  Tensor mask = detail::make_empty(shape, dtype, device);
  auto [seed, offset] = default_generator().reserve(static_cast<uint64_t>(mask.numel()));
  backend_for(device).random(mask, RandomKind::Bernoulli, 1.0 - p, 1.0 / (1.0 - p), seed, offset);
  return mask;
}

Tensor dropout_impl(const char* op, const Tensor& input, double p, bool training, bool channels) {
  check_defined(op, {{"input", input}});
  check_floating(op, {"input", input});
  if (!(p >= 0 && p <= 1)) raise<ValueError>(op, ": p must be in [0, 1], got ", p);
  if (channels && input.dim() < 2)
    raise<ShapeError>(op, ": input must be [N, C, ...], got shape ", shape_str(input.shape()));
  if (!training || p == 0 || input.numel() == 0) return input;
  if (p == 1) return input * 0.0;
  Shape mask_shape = input.shape();
  if (channels)
    for (size_t d = 2; d < mask_shape.size(); ++d) mask_shape[d] = 1;
  return input * draw_mask(mask_shape, p, input.dtype(), input.device());
}

}  // namespace

Tensor dropout(const Tensor& input, double p, bool training) {
  return dropout_impl("dropout", input, p, training, false);
}

Tensor dropout_mask(const Shape& shape, double p, const TensorOptions& options) {
  if (!(p >= 0 && p < 1)) raise<ValueError>("dropout_mask: p must be in [0, 1), got ", p);
  if (!is_floating(options.dtype()))
    raise<DTypeError>("dropout_mask: the mask's dtype must be floating, got ", dtype_name(options.dtype()));
  return draw_mask(shape, p, options.dtype(), options.device());
}

Tensor dropout2d(const Tensor& input, double p, bool training) {
  return dropout_impl("dropout2d", input, p, training, true);
}

}  // namespace ember
