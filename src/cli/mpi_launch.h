// A command started by mpirun (or srun) runs once per rank. Only `train` with `engine = "mpi"`
// splits one run over the ranks; anything else would run whole in each, every copy writing the
// same outputs.
#pragma once

#include <string_view>

namespace hetps::cli {

// Throws UsageError when this process is one of several ranks of an MPI job, as its launcher's
// environment says (OMPI_COMM_WORLD_SIZE from Open MPI's mpirun, PMI_SIZE from MPICH's or
// srun's PMI). `what` names the command ("train with engine = \"sim\"") and `instead` says
// what to do ("set engine = \"mpi\"").
void refuse_several_ranks(std::string_view what, std::string_view instead);

}  // namespace hetps::cli
