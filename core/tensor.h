#pragma once
// Tensor: a cheap handle to a strided view of a Storage on one device, with autograd state.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "ember/core/array_view.h"
#include "ember/core/autograd/hooks.h"
#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/export.h"
#include "ember/core/scalar.h"
#include "ember/core/shape.h"
#include "ember/core/storage.h"
#include "ember/core/tensor_options.h"

namespace ember {

class ModuleTag;  // core/module_tag.h (not installed)
class Node;       // extend/autograd_node.h
// The state behind a handle (storage, geometry, dtype, autograd state): defined in the extension
// set (extend/tensor_impl.h), so that users see only Tensor's methods.
class TensorImpl;
struct ValuesIndices;  // core/ops/reduce.h
namespace detail {
struct TensorImplAccess;  // core/tensor_impl_access.h: core's and autograd's door (not installed)
}

class EMBER_API Tensor {
 public:
  Tensor() = default;

  // ---- metadata ----
  bool defined() const { return impl_ != nullptr; }
  const Shape& shape() const;
  /// Size of one dim (negative dims count from the end); IndexError when out of range,
  /// always for a 0-d tensor (it has no dims). stride(dim) likewise.
  int64_t size(int64_t dim) const;
  const Shape& strides() const;
  int64_t stride(int64_t dim) const;
  int64_t offset() const;
  int64_t dim() const;
  int64_t numel() const;
  DType dtype() const;
  Device device() const;
  bool is_contiguous() const;
  /// The name a Module gave this tensor ("conv1.weight"), or "".
  const std::string& name() const;
  /// Names the tensor as a registered parameter or buffer (shared by every handle).
  void set_name(std::string name) const;
  /// Sets the tag of the module that registered the tensor, which lets a device-mismatch
  /// message name a module that to(device) left behind (core/module_tag.h).
  void set_owner(std::weak_ptr<const ModuleTag> owner) const;
  /// An identity for sets and maps: equal for every handle of one tensor.
  const void* identity() const { return impl_.get(); }
  /// The storage's version counter (bumped by in-place ops on any view).
  uint64_t version() const;
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

  /// Pointer to the first element (device memory for CUDA tensors); T must match dtype.
  template <class T>
  T* data_ptr() const;
  void* raw_data() const;

  // ---- values ----
  /// The single value of a one-element tensor, converted to T (synchronises for CUDA). A value
  /// T cannot hold (NaN, an infinity or out of range for an integer T, beyond float's range
  /// for float) is a ValueError naming it; T is float, double, int64_t, int, uint8_t or bool.
  template <class T>
  T item() const;
  /// item<double>(): `loss.item()` as a PyTorch user writes it (a Python float is a double).
  double item() const;
  /// All values in row-major order, converted to T as item() does (copies to the host).
  template <class T>
  std::vector<T> to_vector() const;
  /// The values of a contiguous CPU tensor in place, without a copy; T must match dtype
  /// (DTypeError), and a CUDA or non-contiguous tensor is a ValueError (use .cpu() or
  /// .contiguous() first). Valid while the storage lives: a later Module::to or copy_ from
  /// another device replaces it.
  template <class T>
  ArrayView<const T> values() const;

  // ---- devices and dtypes ----
  /// This tensor on device (itself when already there).
  [[nodiscard]] Tensor to(Device device) const;
  /// This tensor converted to dtype (itself when already of it).
  [[nodiscard]] Tensor to(DType dtype) const;
  [[nodiscard]] Tensor to(const char* device) const { return to(Device(device)); }
  [[nodiscard]] Tensor cpu() const { return to(Device::cpu()); }
  [[nodiscard]] Tensor cuda(int index = 0) const { return to(Device::cuda(index)); }
  /// A copy with its own storage (differentiable).
  [[nodiscard]] Tensor clone() const;
  /// Copies src's values into this tensor (broadcasting src; across devices and dtypes).
  Tensor& copy_(const Tensor& src);
  /// Every element = value, converted to this tensor's dtype as a cast converts (no promotion:
  /// fill_ writes into the tensor as it is, as PyTorch's does).
  Tensor& fill_(Scalar value);
  Tensor& zero_();

  // ---- autograd ----
  bool requires_grad() const;
  /// Marks a leaf as requiring grad; AutogradError for non-leaves or non-floating dtypes.
  Tensor& requires_grad_(bool requires = true);
  /// The accumulated gradient of a leaf (undefined until backward reaches it).
  Tensor grad() const;
  void set_grad(const Tensor& grad) const;
  const std::shared_ptr<Node>& grad_fn() const;
  bool is_leaf() const;
  /// Backpropagates from this scalar (or with an explicit gradient of this shape).
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false) const;
  /// A view that shares storage but is cut from the graph.
  [[nodiscard]] Tensor detach() const;
  /// Runs hook(*this) each time a backward has summed this leaf's gradient into .grad, after
  /// the sum (once per backward), hooks in registration order. AutogradError unless this is a
  /// leaf that requires grad. An Ember error from a hook leaves backward unchanged; any other
  /// exception becomes an AutogradError naming the leaf. Either way .grad keeps the sum. The
  /// hook gets the leaf as its argument: a hook that captures the leaf itself makes a reference
  /// cycle (leaf -> hook -> leaf) that is never freed.
  HookHandle register_post_accumulate_grad_hook(PostAccumulateGradHook hook) const;

  // ---- views (share storage and version) ----
  Tensor view(const Shape& shape) const;
  Tensor reshape(const Shape& shape) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor permute(const std::vector<int64_t>& dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor expand(const Shape& shape) const;
  Tensor contiguous() const;

  // ---- common math (free functions in core/ops do the work) ----
  Tensor add(const Tensor& o) const;
  Tensor sub(const Tensor& o) const;
  Tensor mul(const Tensor& o) const;
  Tensor div(const Tensor& o) const;
  /// Scalars follow the promotion rule of core/ops/elementwise.h (int64 * 0.5 is float32).
  Tensor add(Scalar s) const;
  Tensor sub(Scalar s) const;
  Tensor mul(Scalar s) const;
  Tensor div(Scalar s) const;
  Tensor pow(Scalar exponent) const;
  Tensor neg() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor abs() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor tanh() const;
  Tensor clamp(Scalar min, Scalar max) const;
  /// In place; a result that would need a wider dtype than this tensor's is a DTypeError.
  Tensor& add_(const Tensor& o, Scalar alpha = 1);
  Tensor& add_(Scalar value);
  Tensor& sub_(const Tensor& o);
  Tensor& sub_(Scalar value);
  Tensor masked_fill(const Tensor& mask, Scalar value) const;
  Tensor& masked_fill_(const Tensor& mask, Scalar value);
  Tensor& mul_(const Tensor& o);
  Tensor& mul_(Scalar value);
  Tensor& div_(const Tensor& o);
  Tensor& div_(Scalar value);
  Tensor sum() const;
  Tensor sum(const std::vector<int64_t>& dims, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(const std::vector<int64_t>& dims, bool keepdim = false) const;
  Tensor var() const;
  Tensor var(const std::vector<int64_t>& dims, double correction = 1, bool keepdim = false) const;
  Tensor std() const;
  Tensor std(const std::vector<int64_t>& dims, double correction = 1, bool keepdim = false) const;
  Tensor max() const;
  Tensor min() const;
  /// The largest values along dim and their int64 indices, as PyTorch's `outputs.max(1)`:
  /// `auto [values, indices] = outputs.max(1);` (ember::max(t, dim, keepdim); reduce.h).
  ValuesIndices max(int64_t dim, bool keepdim = false) const;
  ValuesIndices min(int64_t dim, bool keepdim = false) const;
  Tensor argmax(int64_t dim, bool keepdim = false) const;
  Tensor matmul(const Tensor& o) const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;

 private:
  friend struct detail::TensorImplAccess;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}
  /// The state, or ValueError "<what>: the tensor is undefined".
  TensorImpl& checked_impl(const char* what) const;

  std::shared_ptr<TensorImpl> impl_;
};

namespace detail {
/// ValueError "<what>: the tensor is undefined" (a default-constructed Tensor).
[[noreturn]] EMBER_API void raise_undefined(const char* what);
}  // namespace detail

template <class T>
T* Tensor::data_ptr() const {
  if (dtype_of<T>::value != dtype())
    raise<DTypeError>("data_ptr: requested ", dtype_name(dtype_of<T>::value), " from a tensor of dtype ",
                      dtype_name(dtype()));
  return static_cast<T*>(raw_data());
}

template <class T>
ArrayView<const T> Tensor::values() const {
  if (device() != Device::cpu())
    raise<ValueError>("values: the tensor is on ", device().str(), "; copy it to the CPU with .cpu() first");
  if (!is_contiguous()) raise<ValueError>("values: the tensor is not contiguous; call .contiguous() first");
  return ArrayView<const T>(data_ptr<T>(), static_cast<size_t>(numel()));
}

/// Prints values (at most a few per dim), shape, dtype and device.
EMBER_API std::ostream& operator<<(std::ostream& os, const Tensor& t);

namespace detail {
/// A tensor that shares t's storage with a new geometry (no autograd record).
EMBER_API Tensor make_view(const Tensor& t, Shape shape, Shape strides, int64_t offset);
/// A fresh uninitialised tensor (no autograd record). ValueError naming op for a negative
/// size or a byte count that overflows (see checked_nbytes). (shape by value: a temporary is
/// moved in, not copied.)
EMBER_API Tensor make_empty(Shape shape, DType dtype, Device device, const char* op = "empty");
}  // namespace detail

}  // namespace ember
