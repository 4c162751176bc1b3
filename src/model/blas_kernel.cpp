#include "model/blas_kernel.h"

#include <dlfcn.h>

namespace hetps::model {

std::string blas_kernel() {
  // Looked up at run time, as openblas_set_num_threads is (model_source.cpp): Debian's
  // alternatives may give libtorch a BLAS without it.
  using CoreName = char* (*)();
  const auto core_name = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (core_name == nullptr) return {};
  const char* core = core_name();
  return core == nullptr ? "OpenBLAS" : std::string("OpenBLAS ") + core;
}

}  // namespace hetps::model
