#include "protocol/worker_features.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "protocol/median.h"

namespace hetps::protocol {
namespace {

double mean(const std::deque<double>& values) {
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

void check_seconds(int worker, const char* what, double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) {
    throw std::invalid_argument(
        fmt::format("worker features: worker {}'s {} is {} s; times must be finite and at least 0",
                    worker, what, seconds));
  }
}

}  // namespace

WorkerFeatures::WorkerFeatures(int workers, int window) : window_(window) {
  if (workers < 1) {
    throw std::invalid_argument(
        fmt::format("worker features: workers = {}; there must be at least 1", workers));
  }
  if (window < 1) {
    throw std::invalid_argument(
        fmt::format("worker features: window = {} samples; it must be at least 1", window));
  }
  windows_.resize(static_cast<size_t>(workers));
}

size_t WorkerFeatures::index(int worker) const {
  if (worker < 0 || static_cast<size_t>(worker) >= windows_.size()) {
    throw std::invalid_argument(fmt::format("worker features: no worker {}; workers are 0 ... {}",
                                            worker, windows_.size() - 1));
  }
  return static_cast<size_t>(worker);
}

void WorkerFeatures::observe(int worker, double step_seconds, double round_trip_seconds) {
  Window& window = windows_[index(worker)];
  check_seconds(worker, "step time", step_seconds);
  check_seconds(worker, "round-trip time", round_trip_seconds);
  window.step_seconds.push_back(step_seconds);
  window.round_trip_seconds.push_back(round_trip_seconds);
  if (window.step_seconds.size() > static_cast<size_t>(window_)) {
    window.step_seconds.pop_front();
    window.round_trip_seconds.pop_front();
  }
}

void WorkerFeatures::forget(int worker) { windows_[index(worker)] = {}; }

bool WorkerFeatures::profiled(int worker) const {
  return !windows_[index(worker)].step_seconds.empty();
}

std::vector<int> WorkerFeatures::unprofiled() const {
  std::vector<int> waiting;
  for (size_t w = 0; w < windows_.size(); ++w) {
    if (windows_[w].step_seconds.empty()) waiting.push_back(static_cast<int>(w));
  }
  return waiting;
}

const WorkerFeatures::Window& WorkerFeatures::profiled_window(int worker) const {
  const Window& window = windows_[index(worker)];
  if (window.step_seconds.empty()) {
    throw std::invalid_argument(
        fmt::format("worker features: worker {} has no sample yet; profile it first", worker));
  }
  return window;
}

double WorkerFeatures::mean_step_seconds(int worker) const {
  return mean(profiled_window(worker).step_seconds);
}

double WorkerFeatures::mean_round_trip_seconds(int worker) const {
  return mean(profiled_window(worker).round_trip_seconds);
}

Points WorkerFeatures::normalized(std::span<const int> workers) const {
  std::array<std::vector<double>, kFeatureCount> means;  // by feature, then by worker
  for (int worker : workers) {
    means[kStepTime].push_back(mean_step_seconds(worker));
    means[kRoundTrip].push_back(mean_round_trip_seconds(worker));
  }
  Points features(workers.size(), std::vector<double>(kFeatureCount, 0.0));
  if (workers.empty()) return features;
  for (size_t f = 0; f < kFeatureCount; ++f) {
    double scale = median(means[f]);
    if (scale == 0) scale = *std::ranges::max_element(means[f]);
    if (scale == 0) continue;  // every worker measured 0: all alike
    for (size_t w = 0; w < workers.size(); ++w) features[w][f] = means[f][w] / scale;
  }
  return features;
}

nlohmann::json WorkerFeatures::save_state() const {
  nlohmann::json workers = nlohmann::json::array();
  for (const Window& window : windows_) {
    workers.push_back(
        {{"step_seconds", window.step_seconds}, {"round_trip_seconds", window.round_trip_seconds}});
  }
  return {{"workers", workers}};
}

void WorkerFeatures::restore_state(const nlohmann::json& state) {
  const auto& workers = state.at("workers");
  if (workers.size() != windows_.size()) {
    throw std::invalid_argument(
        fmt::format("worker features: the saved state holds {} workers but this run has {}",
                    workers.size(), windows_.size()));
  }
  std::vector<Window> restored(windows_.size());
  for (size_t w = 0; w < workers.size(); ++w) {
    restored[w].step_seconds = workers[w].at("step_seconds").get<std::deque<double>>();
    restored[w].round_trip_seconds = workers[w].at("round_trip_seconds").get<std::deque<double>>();
    const size_t steps = restored[w].step_seconds.size();
    const size_t round_trips = restored[w].round_trip_seconds.size();
    if (steps != round_trips || steps > static_cast<size_t>(window_)) {
      throw std::invalid_argument(fmt::format(
          "worker features: worker {}'s saved windows hold {} step and {} round-trip samples; "
          "they must hold as many, at most the window of {}",
          w, steps, round_trips, window_));
    }
  }
  windows_ = std::move(restored);
}

}  // namespace hetps::protocol
