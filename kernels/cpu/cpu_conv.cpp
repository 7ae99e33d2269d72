// Placeholder: this family is not written yet; every method says so.
#include "ember/kernels/cpu/cpu_backend.h"

namespace ember {

void CpuBackend::conv2d(const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Conv2dParams& ) { not_implemented("conv2d"); }
void CpuBackend::conv2d_backward_input(const Tensor& , const Tensor& , const Tensor& , const Conv2dParams& ) { not_implemented("conv2d_backward_input"); }
void CpuBackend::conv2d_backward_weight(const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Conv2dParams& ) { not_implemented("conv2d_backward_weight"); }

}  // namespace ember
