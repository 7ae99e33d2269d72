#include "ember/nn/module.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <unordered_set>

#include "ember/core/autograd/grad_mode.h"
#include "ember/core/error.h"
#include "ember/core/module_tag.h"
#include "ember/core/ops/transfer.h"

namespace ember::nn {
namespace {

// Indents every line but the first by two spaces (PyTorch's _addindent).
std::string add_indent(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

}  // namespace

namespace detail {
std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // The shortest digit count that reads back exactly, then Python's choice of notation:
  // scientific when the exponent is below -4 or at least 16.
  char buf[64];
  int digits = 1;
  for (; digits < 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
  const int exponent = std::atoi(std::strchr(buf, 'e') + 1);
  if (exponent < -4 || exponent >= 16) return buf;
  std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - 1 - exponent), v);
  std::string s = buf;
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

std::string py_pair(int64_t h, int64_t w) { return ember::detail::concat("(", h, ", ", w, ")"); }

void clear_grads(const std::vector<Tensor>& params, bool set_to_none) {
  NoGradGuard no_grad;
  for (const Tensor& p : params) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (set_to_none)
      p.set_grad(Tensor());
    else
      g.zero_();
  }
}
}  // namespace detail

Module::Module(std::string type_name)
    : type_name_(std::move(type_name)), tag_(std::make_shared<ModuleTag>(type_name_)) {}
Module::~Module() = default;

Tensor Module::operator()(const Tensor& input) { return forward(input); }

Tensor Module::forward(const Tensor&) {
  raise<NotImplementedError>(type_name_, " does not define forward(input)");
}

void Module::check_new_name(const char* what, const std::string& name) const {
  if (name.empty() || name.find('.') != std::string::npos)
    raise<ValueError>(what, ": invalid name \"", name, "\" (it must be non-empty without '.')");
  auto taken = [&](const auto& list) {
    for (const auto& entry : list)
      if (entry.first == name) return true;
    return false;
  };
  if (taken(params_) || taken(buffers_) || taken(children_))
    raise<ValueError>(what, ": ", type_name_, " already has an attribute named \"", name, "\"");
}

Tensor Module::register_parameter(const std::string& name, Tensor t, bool requires_grad) {
  check_new_name("register_parameter", name);
  if (!t.defined()) raise<ValueError>("register_parameter: \"", name, "\" is an undefined tensor");
  if (!t.is_leaf())
    raise<ValueError>("register_parameter: \"", name,
                      "\" must be a leaf tensor (one not computed by a recorded op; use detach())");
  t.requires_grad_(requires_grad);
  if (t.name().empty()) {  // a shared tensor keeps its first name and owner
    t.set_name(path_of(name));
    t.set_owner(tag_);
  }
  params_.emplace_back(name, t);
  return t;
}

Tensor Module::register_buffer(const std::string& name, Tensor t) {
  check_new_name("register_buffer", name);
  if (!t.defined()) raise<ValueError>("register_buffer: \"", name, "\" is an undefined tensor");
  if (t.name().empty()) {
    t.set_name(path_of(name));
    t.set_owner(tag_);
  }
  buffers_.emplace_back(name, t);
  return t;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> child) {
  check_new_name("register_module", name);
  if (!child) raise<ValueError>("register_module: \"", name, "\" is a null module");
  for (const auto& m : child->named_modules())
    if (m.second.get() == this)
      raise<ValueError>("register_module: \"", name, "\" would make ", type_name_, " a descendant of itself");
  // The child's tensors named after their place in the child become named after their place
  // from the outermost module (this one may be registered already: a ModuleList filled after
  // its registration); a tensor first named elsewhere (shared) keeps that name.
  child->tag_->set_parent_once(tag_, name);
  const std::string child_path = child->tag_->path();
  NamedTensors below;
  child->collect("", below);
  for (const auto& entry : below)
    if (entry.second.name() == entry.first) entry.second.set_name(child_path + "." + entry.first);
  children_.emplace_back(name, std::move(child));
}

std::string Module::path_of(const std::string& name) const {
  const std::string path = tag_->path();
  return path.empty() ? name : path + "." + name;
}

std::shared_ptr<Module> Module::self() const {
  if (auto owned = weak_from_this().lock()) return std::const_pointer_cast<Module>(owned);
  // Aliasing constructor with no owner: a plain pointer for a root owned by the caller.
  return std::shared_ptr<Module>(std::shared_ptr<Module>(), const_cast<Module*>(this));
}

void Module::collect(const std::string& prefix, NamedTensors& out) const {
  for (const auto& p : params_) out.emplace_back(prefix + p.first, p.second);
  for (const auto& b : buffers_) out.emplace_back(prefix + b.first, b.second);
  for (const auto& c : children_) c.second->collect(prefix + c.first + ".", out);
}

NamedModules Module::named_modules() const {
  NamedModules out;
  std::unordered_set<const Module*> seen;
  // Explicit stack, pre-order: children pushed in reverse so they pop in registration order.
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> stack{{"", self()}};
  while (!stack.empty()) {
    auto [path, m] = std::move(stack.back());
    stack.pop_back();
    if (!seen.insert(m.get()).second) continue;
    for (auto it = m->children_.rbegin(); it != m->children_.rend(); ++it)
      stack.emplace_back(path.empty() ? it->first : path + "." + it->first, it->second);
    out.emplace_back(std::move(path), std::move(m));
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules() const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& m : named_modules()) out.push_back(std::move(m.second));
  return out;
}

NamedModules Module::named_children() const { return children_; }

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (const auto& c : children_) out.push_back(c.second);
  return out;
}

namespace {
template <class Select>
NamedTensors named_tensors(bool recurse, const NamedModules& modules, Select select) {
  NamedTensors out;
  std::unordered_set<const void*> seen;
  for (const auto& m : modules) {
    for (const auto& t : select(*m.second))
      if (seen.insert(t.second.identity()).second)
        out.emplace_back(m.first.empty() ? t.first : m.first + "." + t.first, t.second);
    if (!recurse) break;
  }
  return out;
}
std::vector<Tensor> values(const NamedTensors& named) {
  std::vector<Tensor> out;
  for (const auto& n : named) out.push_back(n.second);
  return out;
}
}  // namespace

NamedTensors Module::named_parameters(bool recurse) const {
  return named_tensors(recurse, named_modules(),
                       [](const Module& m) -> const NamedTensors& { return m.params_; });
}
std::vector<Tensor> Module::parameters(bool recurse) const { return values(named_parameters(recurse)); }
NamedTensors Module::named_buffers(bool recurse) const {
  return named_tensors(recurse, named_modules(),
                       [](const Module& m) -> const NamedTensors& { return m.buffers_; });
}
std::vector<Tensor> Module::buffers(bool recurse) const { return values(named_buffers(recurse)); }

namespace {
// Each distinct tensor of the tree once (parameters, buffers and their gradients).
std::vector<Tensor> unique_state(const Module& m) {
  std::vector<Tensor> out;
  std::unordered_set<const void*> seen;
  auto add = [&](const Tensor& t) {
    if (t.defined() && seen.insert(t.identity()).second) out.push_back(t);
  };
  for (const Tensor& p : m.parameters()) {
    add(p);
    add(p.grad());
  }
  for (const Tensor& b : m.buffers()) add(b);
  return out;
}
}  // namespace

Module& Module::to(Device device) {
  check_device_usable(device);  // an unavailable device fails before anything moves
  NoGradGuard no_grad;
  for (const Tensor& t : unique_state(*this))
    if (t.device() != device) set_data(t, ember::detail::transfer(t, device));
  for (const auto& m : modules()) m->tag_->mark_moved();
  return *this;
}

bool Module::was_moved() const { return tag_->moved(); }

namespace {
// The tensor at path among the lists that select picks from each module, or undefined.
template <class Select>
Tensor find_by_path(const NamedModules& modules, const std::string& path, Select select) {
  for (const auto& m : modules)
    for (const auto& t : select(*m.second))
      if ((m.first.empty() ? t.first : m.first + "." + t.first) == path) return t.second;
  return Tensor();
}

[[noreturn]] void unknown_path(const char* what, const std::string& type, const std::string& path,
                               const NamedTensors& known) {
  std::string names;
  for (const auto& k : known) names += (names.empty() ? "" : ", ") + k.first;
  raise<ValueError>(what, ": ", type, " has no ", what, " named \"", path, "\"",
                    known.empty() ? std::string(" (it has none)") : "; it has " + names);
}
}  // namespace

Tensor Module::parameter(const std::string& path) const {
  Tensor t =
      find_by_path(named_modules(), path, [](const Module& m) -> const NamedTensors& { return m.params_; });
  if (!t.defined()) unknown_path("parameter", type_name_, path, named_parameters());
  return t;
}

Tensor Module::buffer(const std::string& path) const {
  Tensor t =
      find_by_path(named_modules(), path, [](const Module& m) -> const NamedTensors& { return m.buffers_; });
  if (!t.defined()) unknown_path("buffer", type_name_, path, named_buffers());
  return t;
}

Module& Module::to(DType dtype) {
  if (!is_floating(dtype))
    raise<DTypeError>("Module::to: only floating dtypes (float32, float64) are accepted, got ",
                      dtype_name(dtype));
  NoGradGuard no_grad;
  for (const Tensor& t : unique_state(*this)) {
    if (!is_floating(t.dtype()) || t.dtype() == dtype) continue;  // counters stay integers
    Tensor converted = ember::detail::make_empty(t.shape(), dtype, t.device());
    ember::detail::copy_values(converted, t);
    set_data(t, converted);
  }
  return *this;
}

Module& Module::train(bool on) {
  for (const auto& m : modules()) m->training_ = on;
  return *this;
}

void Module::zero_grad(bool set_to_none) { detail::clear_grads(parameters(), set_to_none); }

Module& Module::requires_grad_(bool requires_grad) {
  for (Tensor& p : parameters()) p.requires_grad_(requires_grad);
  return *this;
}

StateDict Module::state_dict() const {
  NamedTensors all;
  collect("", all);
  StateDict out;
  for (const auto& e : all) out.insert(e.first, e.second.detach());
  return out;
}

void Module::load_state_dict(const StateDict& state, bool strict, bool assign) {
  NamedTensors expected;
  collect("", expected);
  std::unordered_set<std::string> expected_names;
  std::vector<std::string> missing, unexpected;
  for (const auto& e : expected) {
    expected_names.insert(e.first);
    if (!state.contains(e.first)) missing.push_back(e.first);
  }
  for (const auto& s : state)
    if (!expected_names.count(s.first)) unexpected.push_back(s.first);
  if (strict && (!missing.empty() || !unexpected.empty())) {
    std::string msg = "load_state_dict: error(s) loading into " + type_name_ + ":";
    if (!missing.empty()) msg += " missing keys: " + join_names(missing) + ";";
    if (!unexpected.empty()) msg += " unexpected keys: " + join_names(unexpected) + ";";
    msg.pop_back();
    throw ValueError(msg);
  }
  for (const auto& e : expected) {
    const Tensor* src = state.find(e.first);
    if (!src) continue;
    if (!src->defined()) raise<ValueError>("load_state_dict: \"", e.first, "\" is an undefined tensor");
    if (src->shape() != e.second.shape())
      raise<ShapeError>("load_state_dict: size mismatch for ", e.first, ": the checkpoint has shape ",
                        shape_str(src->shape()), " but the model has shape ", shape_str(e.second.shape()));
  }
  NoGradGuard no_grad;
  for (const auto& e : expected) {
    const Tensor* src = state.find(e.first);
    if (!src) continue;
    Tensor dst = e.second;
    if (!assign) {
      dst.copy_(*src);
      continue;
    }
    const Tensor on_device = src->device() == dst.device() ? *src : src->to(dst.device());
    set_data(dst, on_device.dtype() == dst.dtype() ? on_device : on_device.to(dst.dtype()));
  }
}

std::string Module::repr() const {
  std::vector<std::string> lines;
  const std::string extra = extra_repr();
  size_t extra_lines = 0;
  if (!extra.empty()) {
    std::istringstream in(extra);
    for (std::string line; std::getline(in, line);) lines.push_back(line), ++extra_lines;
  }
  for (const auto& c : children_) lines.push_back("(" + c.first + "): " + add_indent(c.second->repr()));
  std::string out = type_name_ + "(";
  if (extra_lines == 1 && children_.empty()) {
    out += lines[0];
  } else if (!lines.empty()) {
    out += "\n";
    for (const auto& l : lines) out += "  " + l + "\n";
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& os, const Module& m) { return os << m.repr(); }

}  // namespace ember::nn
