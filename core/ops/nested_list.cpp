#include "ember/core/ops/nested_list.h"

#include <algorithm>
#include <limits>

#include "ember/core/error.h"

namespace ember {

void NestedList::set_unsigned(uint64_t value) {
  if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    raise<ValueError>("tensor: ", value, " does not fit int64");
  kind_ = Kind::Integer;
  integers_.push_back(static_cast<int64_t>(value));
}

NestedList::NestedList(std::initializer_list<NestedList> items) {
  shape_.push_back(static_cast<int64_t>(items.size()));
  if (items.size() == 0) return;
  const NestedList& first = *items.begin();
  for (const NestedList& item : items) {
    if (item.shape_.empty() != first.shape_.empty())
      raise<ValueError>("tensor: a list holds both numbers and lists");
    if (item.shape_ != first.shape_)
      raise<ValueError>("tensor: rows of unequal length (", shape_str(first.shape_), " and ",
                        shape_str(item.shape_), ")");
    kind_ = std::max(kind_, item.kind_);
  }
  shape_.insert(shape_.end(), first.shape_.begin(), first.shape_.end());
  for (const NestedList& item : items) {
    if (kind_ != Kind::Floating) {
      integers_.insert(integers_.end(), item.integers_.begin(), item.integers_.end());
    } else if (item.kind_ == Kind::Floating) {
      floats_.insert(floats_.end(), item.floats_.begin(), item.floats_.end());
    } else {
      // An integer among floating numbers becomes floating, as in torch.tensor([1, 2.5]).
      for (int64_t v : item.integers_) floats_.push_back(static_cast<double>(v));
    }
  }
}

}  // namespace ember
