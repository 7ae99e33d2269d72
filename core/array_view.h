#pragma once
// ArrayView<T>: a pointer and a count, the view C++17 lacks (std::span is C++20). It owns nothing.
#include <cstddef>

#include "ember/core/error.h"

namespace ember {

template <class T>
class ArrayView {
 public:
  ArrayView() = default;
  ArrayView(T* data, size_t size) : data_(data), size_(size) {}

  T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }
  /// Unchecked, as std::span's.
  T& operator[](size_t i) const { return data_[i]; }
  /// Checked: IndexError past the end.
  T& at(size_t i) const {
    if (i >= size_) raise<IndexError>("ArrayView::at: index ", i, " is out of range for size ", size_);
    return data_[i];
  }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ember
