// Placeholder: this family is not written yet; every method says so.
#include "ember/kernels/cpu/cpu_backend.h"

namespace ember {

void CpuBackend::sgd_step(const std::vector<Tensor>& , const std::vector<Tensor>& , const std::vector<Tensor>& , const SgdParams& ) { not_implemented("sgd_step"); }
void CpuBackend::adam_step(const std::vector<Tensor>& , const std::vector<Tensor>& , const std::vector<Tensor>& , const std::vector<Tensor>& , const AdamParams& ) { not_implemented("adam_step"); }

}  // namespace ember
