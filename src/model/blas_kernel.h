// Which BLAS kernels computed a run. Debian's OpenBLAS is built for every x86-64 generation
// (DYNAMIC_ARCH) and picks its kernels for the CPU it loads on; kernels of two generations round
// a matrix product differently. So the simulator, bit for bit the same on one machine, can end
// elsewhere with other numbers: BSP at 16 workers of hetero-compute, seed 1, ended at 86.75% with
// the kernels picked on an AVX-512 machine (Cooperlake) and at 86.84% with
// OPENBLAS_CORETYPE=Haswell on the same machine (measured 2026-12-03). The summary names the
// kernels, so that two runs that differ can be told apart.
#pragma once

#include <string>

namespace hetps::model {

// "OpenBLAS <core>" (OpenBLAS's own name for the kernels it chose, e.g. "OpenBLAS Haswell"), or
// empty where libtorch's BLAS is not OpenBLAS.
std::string blas_kernel();

}  // namespace hetps::model
