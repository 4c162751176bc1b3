#include "engine/stall_inspector.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checkpoint/restoring.h"
#include "checkpoint/saved_integers.h"

namespace hetps::engine {

namespace {

// The server sees only silence: a worker still computing a long local phase looks hung.
constexpr std::string_view kBusyLooksHung =
    " (a worker busy for longer than that, with long local steps say, is taken for hung: raise "
    "run.stall_timeout_s then)";

}  // namespace

StallInspector::StallInspector(double warning_seconds, double timeout_seconds,
                               std::function<std::string(int)> describe)
    : warning_seconds_(warning_seconds),
      timeout_seconds_(timeout_seconds),
      describe_(std::move(describe)) {}

void StallInspector::expect(int worker, double since, std::string awaited) {
  waits_[worker] = Wait{since, std::move(awaited), false, ""};
}

void StallInspector::settle(int worker) { waits_.erase(worker); }

void StallInspector::held_up(int worker, std::string blocker) {
  const auto wait = waits_.find(worker);
  if (wait != waits_.end()) wait->second.blocker = std::move(blocker);
}

std::string StallInspector::describe_wait(int worker, const Wait& wait, double now) const {
  const std::string blocker =
      wait.blocker.empty() ? "" : fmt::format("; the worker itself waits for {}", wait.blocker);
  return fmt::format("{} (waiting for {} since {:.1f} s, {:.1f} s ago{})", describe_(worker),
                     wait.awaited, wait.since, now - wait.since, blocker);
}

StallInspector::Findings StallInspector::check(double now) {
  Findings findings;
  std::vector<std::string> overdue;
  bool unexplained = false;  // a worker overdue that did not say what holds it up
  for (auto& [worker, wait] : waits_) {
    // The same sums as next_check's, so that checking at next_check() always finds its due.
    if (now >= wait.since + timeout_seconds_) {
      overdue.push_back(describe_wait(worker, wait, now));
      unexplained = unexplained || wait.blocker.empty();
    }
    if (now >= wait.since + warning_seconds_ && !wait.warned) {
      wait.warned = true;
      findings.warnings.push_back(fmt::format("slow: {}; run.stall_warning_s = {}",
                                              describe_wait(worker, wait, now), warning_seconds_));
    }
  }
  if (!overdue.empty()) {
    findings.timeout =
        fmt::format("stalled: waited longer than run.stall_timeout_s = {} for {}{}",
                    timeout_seconds_, fmt::join(overdue, "; "), unexplained ? kBusyLooksHung : "");
  }
  return findings;
}

double StallInspector::next_check() const {
  double next = std::numeric_limits<double>::infinity();
  for (const auto& [worker, wait] : waits_) {
    next = std::min(next, wait.since + (wait.warned ? timeout_seconds_ : warning_seconds_));
  }
  return next;
}

nlohmann::json StallInspector::save_state() const {
  nlohmann::json waits = nlohmann::json::array();
  for (const auto& [worker, wait] : waits_) {
    nlohmann::json saved = {{"worker", worker},
                            {"since", wait.since},
                            {"awaited", wait.awaited},
                            {"warned", wait.warned}};
    if (!wait.blocker.empty()) saved["blocker"] = wait.blocker;
    waits.push_back(std::move(saved));
  }
  return {{"waits", waits}};
}

void StallInspector::restore_state(const nlohmann::json& state) {
  checkpoint::restoring("the stall inspector", [&] {
    std::map<int, Wait> waits;
    for (const nlohmann::json& saved : state.at("waits")) {
      const int worker = checkpoint::integer<int>(saved.at("worker"));
      if (worker < 0) {
        throw checkpoint::CheckpointError(fmt::format("a wait for worker {}", worker));
      }
      // "blocker" only where the worker said what held it up (and absent from older
      // checkpoints).
      const Wait wait{saved.at("since").get<double>(), saved.at("awaited").get<std::string>(),
                      saved.at("warned").get<bool>(), saved.value("blocker", std::string())};
      if (!waits.emplace(worker, wait).second) {
        throw checkpoint::CheckpointError(fmt::format("worker {}'s wait is given twice", worker));
      }
    }
    waits_ = std::move(waits);
  });
}

}  // namespace hetps::engine
