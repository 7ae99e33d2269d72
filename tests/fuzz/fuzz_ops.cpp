// Op parameters from fuzz bytes: an input of a fuzzed shape, then one of the view, window,
// index, reduction or factory ops with fuzzed sizes, dims, offsets, kernels, strides,
// paddings and dilations. Every result is read in full (and the window ops run backward),
// so ASan sees any element an op did not own. Any ember::Error is a fine answer.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "ember/core/checked_math.h"
#include "ember/ember.h"
#include "fuzz_support.h"

namespace {

using ember::Tensor;
using ember::fuzz::Input;

// Reads every element of t through a contiguous copy.
void touch(const Tensor& t) {
  if (!t.defined()) return;
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const unsigned char*>(c.raw_data());
  const size_t n = static_cast<size_t>(c.numel()) * ember::itemsize(c.dtype());
  unsigned sum = 0;
  for (size_t i = 0; i < n; ++i) sum += p[i];
  if (c.numel() == 0 && sum != 0) std::abort();
}

// An input of a fuzzed shape holding 0, 1, 2, ... (float32), or an undefined tensor when
// the shape is refused.
Tensor input(Input& in, size_t max_dims, bool grad = false) {
  const ember::Shape shape = in.shape(max_dims);
  const int64_t n = ember::checked_numel(shape, "fuzz");
  Tensor t = ember::arange(0, static_cast<double>(n)).view(shape);
  if (grad) t = t.detach().requires_grad_(true);
  return t;
}

ember::IntPair pair(Input& in) {
  const int64_t h = in.param();
  return in.byte() & 1 ? ember::IntPair(h) : ember::IntPair(h, in.param());
}

// Index tensors hold fuzzed values, in range or not.
// (Allocated by Ember, so that the size cap applies to it too.)
Tensor index(Input& in, const ember::Shape& shape) {
  Tensor t = ember::empty(shape, ember::kInt64);
  int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = in.param();
  return t;
}

// A legal conv can still need billions of multiply-adds (a large padding within the size
// cap): slow, not wrong. Its output shape comes from the same call on an empty batch (all
// checks, no arithmetic); beyond 2^24 multiply-adds the input is skipped.
bool affordable_conv(const Tensor& x, const Tensor& w, const Tensor& b, ember::IntPair stride,
                     ember::IntPair padding, ember::IntPair dilation) {
  const Tensor batch = x.dim() == 3 ? x.detach().unsqueeze(0) : x.detach();
  const Tensor none = ember::conv2d(batch.narrow(0, 0, 0), w.detach(), b.defined() ? b.detach() : b, stride,
                                    padding, dilation);
  double work = static_cast<double>(batch.size(0)) * static_cast<double>(w.numel());
  for (int64_t d = 2; d < 4; ++d) work *= static_cast<double>(none.size(d));
  return work <= double(1 << 24);
}

void backward_through(const Tensor& out, const Tensor& x) {
  if (!x.requires_grad() || !out.defined() || !out.requires_grad()) return;
  out.sum().backward();
  touch(x.grad());
}

void run(Input& in) {
  switch (in.byte() % 22) {
    case 0:
      touch(input(in, 4).view(in.shape(4)));
      break;
    case 1:
      touch(input(in, 4).reshape(in.shape(4)));
      break;
    case 2: {
      Tensor t = input(in, 4);
      const int64_t d = in.param(), s = in.param(), l = in.param();
      touch(t.narrow(d, s, l));
      break;
    }
    case 3: {
      Tensor t = input(in, 4);
      const int64_t d = in.param(), i = in.param();
      touch(t.select(d, i));
      break;
    }
    case 4:
      touch(input(in, 3).expand(in.shape(5)));
      break;
    case 5:
      touch(input(in, 4).permute(in.dims(5)));
      break;
    case 6: {
      Tensor t = input(in, 4);
      const int64_t a = in.param(), b = in.param();
      touch(t.transpose(a, b));
      break;
    }
    case 7:
      touch(input(in, 4).squeeze(in.param()));
      break;
    case 8:
      touch(input(in, 4).unsqueeze(in.param()));
      break;
    case 9: {
      Tensor t = input(in, 4);
      const int64_t a = in.param(), b = in.param();
      touch(t.flatten(a, b));
      break;
    }
    case 10: {
      const Tensor x = input(in, 4, true), w = input(in, 4, true);
      const Tensor b = in.byte() & 1 ? input(in, 1, true) : Tensor();
      const ember::IntPair stride = pair(in), padding = pair(in), dilation = pair(in);
      if (!affordable_conv(x, w, b, stride, padding, dilation)) break;
      const Tensor y = ember::conv2d(x, w, b, stride, padding, dilation);
      touch(y);
      backward_through(y, x);
      break;
    }
    case 11:
    case 12:
    case 13: {
      const int which = in.byte() % 3;
      const Tensor x = input(in, 4, true);
      const ember::IntPair kernel = pair(in), stride = pair(in), padding = pair(in);
      Tensor y;
      if (which == 0) y = ember::max_pool2d(x, kernel, stride, padding);
      if (which == 1) y = ember::avg_pool2d(x, kernel, stride, padding);
      if (which == 2) {
        const ember::ValuesIndices r = ember::max_pool2d_with_indices(x, kernel, stride, padding);
        touch(r.indices);
        y = r.values;
      }
      touch(y);
      backward_through(y, x);
      break;
    }
    case 14: {
      const Tensor x = input(in, 3, true);
      const int64_t d = in.param();
      const Tensor y = ember::index_select(x, d, index(in, in.shape(1)));
      touch(y);
      backward_through(y, x);
      break;
    }
    case 15: {
      const Tensor x = input(in, 3, true);
      const int64_t d = in.param();
      const Tensor y = ember::gather(x, d, index(in, in.shape(3)));
      touch(y);
      backward_through(y, x);
      break;
    }
    case 16: {
      std::vector<Tensor> parts(in.byte() % 4);
      for (Tensor& p : parts) p = input(in, 3);
      const int64_t d = in.param();
      touch(in.byte() & 1 ? ember::cat(parts, d) : ember::stack(parts, d));
      break;
    }
    case 17: {
      Tensor t = input(in, 4);
      const std::vector<int64_t> dims = in.dims(4);
      touch(in.byte() & 1 ? t.sum(dims, in.byte() & 1) : t.mean(dims));
      break;
    }
    case 18: {
      Tensor t = input(in, 4);
      const int64_t d = in.param();
      touch(in.byte() & 1 ? t.argmax(d) : t.softmax(d));
      break;
    }
    case 19: {
      const ember::Shape s = in.shape(5);
      touch(in.byte() & 1 ? ember::zeros(s) : ember::rand(s));
      break;
    }
    case 20: {
      const int64_t low = in.param(), high = in.param();
      touch(ember::randint(low, high, in.shape(3), ember::kInt64));
      break;
    }
    case 21: {
      const double start = static_cast<double>(in.param()), end = static_cast<double>(in.param());
      const double step = static_cast<double>(in.param()) / 4;
      touch(ember::arange(start, end, step));
      break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::fuzz::cap_allocations();
  Input in(data, size);
  try {
    run(in);
  } catch (const ember::Error&) {
  }
  return 0;
}
