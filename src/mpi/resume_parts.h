// A resumed run's start (rank_checkpoints.h): rank 0 sends every other rank its part of the
// checkpoint (kResumeState: the time the run resumes at and the rank's state, CBOR), and each
// rank waits for its own before the start barrier.
#pragma once

#include <mpi.h>

#include <vector>

#include <nlohmann/json.hpp>

#include "mpi/patient_wait.h"

namespace hetps::mpi {

// Sends `ranks[i]` the state `states[i]` with `time`, and waits until every part is sent.
void send_resume_parts(MPI_Comm comm, const std::vector<int>& ranks, const nlohmann::json& states,
                       double time);

struct ResumePart {
  double time = 0;  // the run resumes at this engine time
  nlohmann::json state;
};
// This rank's part from `server` (rank 0), given up after `patience`. Throws MessageError naming
// `server` when what came is not a part.
ResumePart receive_resume_part(MPI_Comm comm, int server, Patience patience);

}  // namespace hetps::mpi
