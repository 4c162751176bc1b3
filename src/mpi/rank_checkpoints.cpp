#include "mpi/rank_checkpoints.h"

#include <fmt/format.h>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/restoring.h"
#include "mpi/resume_parts.h"

namespace hetps::mpi {

bool share_whether_resumed(bool resumed, MPI_Comm comm, const RankLayout& layout,
                           Patience patience) {
  int flag = resumed ? 1 : 0;
  MPI_Request request;
  MPI_Ibcast(&flag, 1, MPI_INT, layout.server_rank(), comm, &request);
  wait_for(request, patience, [] {
    return std::string("rank 0's word on whether the run resumes from a checkpoint (MPI_Ibcast)");
  });
  return flag != 0;
}

double start_rank(const RankSetup& setup, RunClock& clock,
                  const std::function<void(const nlohmann::json& state)>& restore) {
  const Patience patience = Patience::before_training(setup.config.run);
  double time = 0;
  if (setup.resumed) {
    ResumePart part = receive_resume_part(setup.comm, setup.layout.server_rank(), patience);
    restore(part.state);
    time = part.time;
  }
  clock.start(setup.comm, patience, time);
  return time;
}

bool RankCheckpointer::take(engine::ServerLoop& loop) {
  bool taken = false;
  endpoint_.with_clock_standing([&] {
    const double time = clock_.now();
    if (!loop.may_checkpoint_at(time)) return;
    schedule_.taken(time);
    const nlohmann::json state = {{"engine", "mpi"},
                                  {"time", time},
                                  {"wall_seconds", wall_seconds_()},
                                  {"next_checkpoint", schedule_.next()},
                                  {"loop", loop.save_state()},
                                  {"workers", endpoint_.gather_worker_states(patience_)},
                                  {"shards", peers_ ? peers_->save_state() : nullptr}};
    checkpoints_.save(state, time);
    taken = true;
    if (schedule_.stop_asked()) throw engine::Interrupted(time);
  });
  return taken;
}

RankCheckpointer::Resumed RankCheckpointer::resume(const nlohmann::json& state,
                                                   engine::ServerLoop& loop, int workers) {
  Resumed resumed;
  checkpoint::restoring("the mpi engine", [&] {
    checkpoint::expect_engine(state, "mpi");
    const nlohmann::json& worker_states = state.at("workers");
    if (!worker_states.is_array() || worker_states.size() != static_cast<size_t>(workers)) {
      throw checkpoint::CheckpointError(
          fmt::format("holds {} workers, the run has {}", worker_states.size(), workers));
    }
    resumed.time = state.at("time").get<double>();
    resumed.wall_seconds = state.at("wall_seconds").get<double>();
    schedule_.restore_next(state.at("next_checkpoint").get<double>());
    loop.restore_state(state.at("loop"));
    const nlohmann::json& shards = state.at("shards");
    if (peers_ != nullptr) {
      peers_->restore_state(shards, resumed.time);
    } else if (!shards.is_null()) {
      throw checkpoint::CheckpointError("holds other server shards, the run has one");
    }
    endpoint_.send_resume_states(worker_states, resumed.time);
  });
  return resumed;
}

}  // namespace hetps::mpi
