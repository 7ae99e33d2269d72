// Placeholder: this family is not written yet; every method says so.
#include "ember/kernels/cpu/cpu_backend.h"

namespace ember {

void CpuBackend::max_pool2d(const Tensor& , const Tensor& , const Tensor& , const Pool2dParams& ) { not_implemented("max_pool2d"); }
void CpuBackend::max_pool2d_backward(const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Pool2dParams& ) { not_implemented("max_pool2d_backward"); }
void CpuBackend::avg_pool2d(const Tensor& , const Tensor& , const Pool2dParams& ) { not_implemented("avg_pool2d"); }
void CpuBackend::avg_pool2d_backward(const Tensor& , const Tensor& , const Pool2dParams& ) { not_implemented("avg_pool2d_backward"); }

}  // namespace ember
