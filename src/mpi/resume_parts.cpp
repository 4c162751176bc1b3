#include "mpi/resume_parts.h"

#include <string>

#include "mpi/messages.h"
#include "mpi/wire/message_error.h"
#include "mpi/wire/state_bytes.h"

namespace hetps::mpi {

void send_resume_parts(MPI_Comm comm, const std::vector<int>& ranks, const nlohmann::json& states,
                       double time) {
  std::vector<std::vector<char>> parts;
  for (size_t i = 0; i < ranks.size(); ++i) {
    parts.push_back(encode_state({{"time", time}, {"state", states.at(i)}}));
  }
  std::vector<MPI_Request> requests;
  for (size_t i = 0; i < ranks.size(); ++i) {
    requests.push_back(post_bytes(parts[i], ranks[i], kResumeState, comm));
  }
  wait_for_all(requests);
}

ResumePart receive_resume_part(MPI_Comm comm, int server, Patience patience) {
  const MPI_Status message = wait_for_message(comm, server, kResumeState, patience, [] {
    return std::string("this rank's state from rank 0's checkpoint");
  });
  const nlohmann::json part = decode_state(take_bytes(message, comm), server);
  const auto time = part.find("time");
  const auto state = part.find("state");
  if (time == part.end() || !time->is_number() || state == part.end() || !state->is_object()) {
    throw MessageError(server, "a resumed rank's part without its time and state");
  }
  return {time->get<double>(), *state};
}

}  // namespace hetps::mpi
