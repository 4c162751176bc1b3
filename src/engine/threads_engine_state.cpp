// The threads engine's checkpoints (threads_engine.h, "Checkpoints"): taken while every worker
// rests and the clock stands, so a resumed run loses no update and applies none twice. What the
// config determines (the cluster model, the link speeds, the partition) is rebuilt by the
// constructor and not saved.
#include <fmt/format.h>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"
#include "engine/threads_engine.h"

namespace hetps::engine {

nlohmann::json ThreadsEngine::save_state(double time) {
  nlohmann::json workers = nlohmann::json::array();
  std::vector<int64_t> pushes;
  for (size_t w = 0; w < workers_.size(); ++w) {
    workers.push_back(workers_[w]->save_state());
    pushes.push_back(loop_states_[w].pushes);
  }
  // A member's update is read by its leader before the merge that lets the member rest, so a
  // resting run's member mailboxes hold only deaths the server announced to idle leaders.
  nlohmann::json unread_deaths = nlohmann::json::array();
  for (size_t leader = 0; leader < member_mailboxes_.size(); ++leader) {
    std::vector<int> members;
    for (const MemberMessage& message : member_mailboxes_[leader]->unread()) {
      if (!message.gone) {
        throw std::logic_error(
            fmt::format("a checkpoint found worker {}'s update unread by its leader {}",
                        message.member, leader));
      }
      members.push_back(message.member);
    }
    unread_deaths.push_back(members);
  }
  const std::chrono::duration<double> wall = Clock::now() - wall_start_;
  return {{"engine", "threads"},
          {"time", time},
          {"wall_seconds", wall.count()},
          {"next_checkpoint", schedule_->next()},
          {"loop", loop_.save_state()},
          {"workers", std::move(workers)},
          {"pushes", pushes},
          {"unread_deaths", std::move(unread_deaths)},
          {"delays", delays_.save_state()},
          {"timeline", timeline_.save_state()}};
}

double ThreadsEngine::restore_state(const nlohmann::json& state) {
  double time = 0;
  checkpoint::restoring("the threads engine", [&] {
    checkpoint::expect_engine(state, "threads");
    const nlohmann::json& workers = state.at("workers");
    const auto pushes = checkpoint::integers<std::vector<int64_t>>(state.at("pushes"));
    const nlohmann::json& unread_deaths = state.at("unread_deaths");
    if (workers.size() != workers_.size() || pushes.size() != workers_.size() ||
        unread_deaths.size() != workers_.size()) {
      throw checkpoint::CheckpointError(
          fmt::format("holds {} workers, the run has {}", workers.size(), workers_.size()));
    }
    time = state.at("time").get<double>();
    wall_start_ -= std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(state.at("wall_seconds").get<double>()));
    schedule_->restore_next(state.at("next_checkpoint").get<double>());
    loop_.restore_state(state.at("loop"));
    for (size_t w = 0; w < workers_.size(); ++w) {
      workers_[w]->restore_state(workers.at(w));
      loop_states_[w].pushes = pushes[w];
      for (int member : checkpoint::integers<std::vector<int>>(unread_deaths.at(w))) {
        if (member < 0 || static_cast<size_t>(member) >= workers_.size()) {
          throw checkpoint::CheckpointError(fmt::format(
              "worker {} was told of the death of worker {}, which does not exist", w, member));
        }
        tell_member_gone(static_cast<int>(w), member);
      }
    }
    delays_.restore_state(state.at("delays"));
    timeline_.restore_state(state.at("timeline"));
  });
  return time;
}

}  // namespace hetps::engine
