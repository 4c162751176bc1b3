// OpenMPI's shared-memory transport between ranks on one host (btl vader) moves a large message
// in one copy, from the sender's buffer straight into the receiver's, when it has a single-copy
// mechanism (CMA, which needs ptrace permission between the ranks; XPMEM; KNEM). Containers and
// CI often turn it off (OMPI_MCA_btl_vader_single_copy_mechanism=none, since CMA fails without
// ptrace): every large message is then copied twice, through a shared buffer, and a model-sized
// push or pull takes about twice as long. The setting is read as OpenMPI holds it, through MPI's
// tool information interface (MPI_T control variables), whether it came from the environment,
// a parameter file or `mpirun --mca`.
#pragma once

#include <optional>
#include <string>

#include "mpi/rank_layout.h"

namespace hetps::mpi {

// The value of the MPI library's control variable `name` (an OpenMPI MCA parameter), as its
// enumeration names it ("cma", "none"), or its number when it has no names; nothing when the
// library has no such variable (another MPI, or the component is not loaded) or it is not an
// integer.
std::optional<std::string> mpi_setting(const std::string& name);

// What the run log should say when ranks share a host and OpenMPI copies every large message
// between them twice (btl_vader_single_copy_mechanism = none); nothing otherwise.
std::optional<std::string> double_copy_warning(const RankLayout& layout);

}  // namespace hetps::mpi
