// Never a silent hang: remembers, for every worker the server is waiting on (its first pull,
// or an update that is due), since when, and says so once a wait passes `run.stall_warning_s`; past
// `run.stall_timeout_s` it produces the message the run stops with. Pure: the engine passes
// its own time (virtual or wall) and says how to name a worker (its rank and host on MPI).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetps::engine {

class StallInspector {
 public:
  StallInspector(double warning_seconds, double timeout_seconds,
                 std::function<std::string(int worker)> describe);

  // The engine now waits for `awaited` from `worker` ("its update", "its first pull"), since
  // `since`.
  void expect(int worker, double since, std::string awaited = "its update");
  // The awaited message came, or the worker is gone: nothing waits for it any more.
  void settle(int worker);
  // The worker says it cannot send what is awaited: it waits itself for `blocker` ("server
  // shard 1 (rank 1 on host h), which does not answer"), which the timeout (and a warning not
  // given yet) then names; an empty `blocker`: nothing holds it up any more. Ignored when
  // nothing waits for the worker.
  void held_up(int worker, std::string blocker);

  struct Findings {
    std::vector<std::string> warnings;   // waits that just passed the warning (each said once)
    std::optional<std::string> timeout;  // set once a wait passed the timeout
  };
  Findings check(double now);
  // The earliest time `check` can have something new to say (infinity when nothing waits).
  double next_check() const;

  // The waits (since when, for what, whether warned), for checkpoints; the limits and how to
  // name a worker come from the constructor. restore_state throws checkpoint::CheckpointError
  // for a negative worker, a worker given twice or a field missing, and then changes nothing.
  nlohmann::json save_state() const;
  void restore_state(const nlohmann::json& state);

 private:
  struct Wait {
    double since = 0;
    std::string awaited;
    bool warned = false;
    std::string blocker;  // what the worker itself waits for, when it said so
  };
  std::string describe_wait(int worker, const Wait& wait, double now) const;

  double warning_seconds_;
  double timeout_seconds_;
  std::function<std::string(int)> describe_;
  std::map<int, Wait> waits_;
};

}  // namespace hetps::engine
