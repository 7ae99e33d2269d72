// Placeholder: this family is not written yet; every method says so.
#include "ember/kernels/cpu/cpu_backend.h"

namespace ember {

void CpuBackend::batch_norm(const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Tensor& , bool , double , double ) { not_implemented("batch_norm"); }
void CpuBackend::batch_norm_backward(const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Tensor& , const Tensor& , bool ) { not_implemented("batch_norm_backward"); }

}  // namespace ember
