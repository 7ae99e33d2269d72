// Placeholder: this family is not written yet; every method says so.
#include "ember/kernels/cpu/cpu_backend.h"

namespace ember {

void CpuBackend::index_select(const Tensor& , const Tensor& , int , const Tensor& , const char* ) { not_implemented("index_select"); }
void CpuBackend::index_add(const Tensor& , int , const Tensor& , const Tensor& ) { not_implemented("index_add"); }
void CpuBackend::gather(const Tensor& , const Tensor& , int , const Tensor& , const char* ) { not_implemented("gather"); }
void CpuBackend::scatter_add(const Tensor& , int , const Tensor& , const Tensor& ) { not_implemented("scatter_add"); }

}  // namespace ember
