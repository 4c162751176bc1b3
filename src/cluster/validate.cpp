#include "cluster/validate.h"

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace hetps::cluster {
namespace {

void require(bool allowed, const std::string& key, double value, std::string_view rule) {
  if (!allowed) throw std::invalid_argument(fmt::format("{} = {}: {}", key, value, rule));
}

// The checks below are written so that NaN fails them too.
void require_positive(const std::string& key, double value) {
  require(value > 0 && std::isfinite(value), key, value, "must be a finite number > 0");
}

// A bandwidth of `inf` is an ideal link: it adds no transfer time (the real engines then inject
// no delay for it).
void require_bandwidth(const std::string& key, double value) {
  require(value > 0, key, value, "must be a number > 0 (inf: an ideal link)");
}

void require_non_negative(const std::string& key, double value) {
  require(value >= 0 && std::isfinite(value), key, value, "must be a finite number >= 0");
}

void require_each(const std::string& key, const std::vector<double>& values,
                  void (*check)(const std::string&, double)) {
  if (values.empty()) {
    throw std::invalid_argument(fmt::format("{} is empty: give at least one value", key));
  }
  for (size_t i = 0; i < values.size(); ++i) check(fmt::format("{}[{}]", key, i), values[i]);
}

// `key` names the list element ("cluster.stragglers[0]") whose worker this is.
void require_worker(const std::string& key, int worker, int workers) {
  if (worker < 0 || worker >= workers) {
    throw std::invalid_argument(
        fmt::format("{}.worker = {}: must be in [0, {}) (cluster.workers)", key, worker, workers));
  }
}

void validate_episode(const config::StragglerEpisode& episode, size_t index, int workers) {
  std::string key = fmt::format("cluster.stragglers[{}]", index);
  require_worker(key, episode.worker, workers);
  require_non_negative(key + ".start", episode.start);
  require_positive(key + ".duration", episode.duration);
  require(episode.slowdown >= 1 && std::isfinite(episode.slowdown), key + ".slowdown",
          episode.slowdown, "must be a finite number >= 1");
}

// A worker fails at most once: a second entry would be a fault injected into the dead.
void validate_failures(const std::vector<config::WorkerFailure>& failures, int workers) {
  std::map<int, size_t> entry_of_worker;
  for (size_t i = 0; i < failures.size(); ++i) {
    const config::WorkerFailure& failure = failures[i];
    const std::string key = fmt::format("cluster.failures[{}]", i);
    require_worker(key, failure.worker, workers);
    const auto [first, inserted] = entry_of_worker.emplace(failure.worker, i);
    if (!inserted) {
      throw std::invalid_argument(
          fmt::format("{}.worker = {}: already fails in cluster.failures[{}]; a worker fails once",
                      key, failure.worker, first->second));
    }
    require_non_negative(key + ".time", failure.time);
    if (failure.kind != "crash" && failure.kind != "hang") {
      throw std::invalid_argument(
          fmt::format("{}.kind = \"{}\": must be \"crash\" or \"hang\"", key, failure.kind));
    }
  }
}

// A shard's process dies once: a second entry would be a fault injected into the dead.
void validate_shard_failures(const std::vector<config::ShardFailure>& failures, int servers) {
  std::map<int, size_t> entry_of_shard;
  for (size_t i = 0; i < failures.size(); ++i) {
    const config::ShardFailure& failure = failures[i];
    const std::string key = fmt::format("cluster.shard_failures[{}]", i);
    if (failure.shard < 0 || failure.shard >= servers) {
      throw std::invalid_argument(fmt::format("{}.shard = {}: must be in [0, {}) (cluster.servers)",
                                              key, failure.shard, servers));
    }
    const auto [first, inserted] = entry_of_shard.emplace(failure.shard, i);
    if (!inserted) {
      throw std::invalid_argument(fmt::format(
          "{}.shard = {}: already fails in cluster.shard_failures[{}]; a shard fails once", key,
          failure.shard, first->second));
    }
    require_non_negative(key + ".time", failure.time);
  }
}

void validate_random(const config::RandomStragglers& random) {
  const std::string key = "cluster.random_stragglers";
  require_non_negative(key + ".rate_per_min", random.rate_per_min);
  require_positive(key + ".mean_duration", random.mean_duration);
  require(random.slowdown_min >= 1 && std::isfinite(random.slowdown_min), key + ".slowdown_min",
          random.slowdown_min, "must be a finite number >= 1");
  require(random.slowdown_max >= random.slowdown_min && std::isfinite(random.slowdown_max),
          key + ".slowdown_max", random.slowdown_max,
          fmt::format("must be a finite number >= slowdown_min ({})", random.slowdown_min));
  // Overlapping episodes multiply: a worker expected to be in several at once is not a
  // transient straggler but one that all but stops, and the episodes its run must model pile
  // up without end.
  const double at_once = random.rate_per_min * random.mean_duration / 60;
  require(at_once <= 1, key + ".rate_per_min", random.rate_per_min,
          fmt::format("with mean_duration = {} s a worker would be in {:.3g} episodes at once on "
                      "average (rate_per_min × mean_duration / 60), and overlapping episodes "
                      "multiply: must be at most {:.3g} for this mean_duration",
                      random.mean_duration, at_once, 60 / random.mean_duration));
}

}  // namespace

void validate(const config::ClusterConfig& cluster) {
  if (cluster.workers < 1) {
    throw std::invalid_argument(
        fmt::format("cluster.workers = {}: must be at least 1", cluster.workers));
  }
  if (cluster.servers < 1) {
    throw std::invalid_argument(
        fmt::format("cluster.servers = {}: must be at least 1", cluster.servers));
  }
  require_each("cluster.speeds", cluster.speeds, require_positive);
  require_positive("cluster.worker_gflops", cluster.worker_gflops);
  require_non_negative("cluster.compute_noise", cluster.compute_noise);
  require_each("cluster.link_gbps", cluster.link_gbps, require_bandwidth);
  require_each("cluster.link_latency_ms", cluster.link_latency_ms, require_non_negative);
  require_bandwidth("cluster.server_gbps", cluster.server_gbps);
  require_non_negative("cluster.server_latency_ms", cluster.server_latency_ms);
  require_positive("cluster.apply_gbps", cluster.apply_gbps);
  require_non_negative("cluster.switch_overhead_pulls", cluster.switch_overhead_pulls);
  for (size_t i = 0; i < cluster.stragglers.size(); ++i) {
    validate_episode(cluster.stragglers[i], i, cluster.workers);
  }
  validate_random(cluster.random_stragglers);
  validate_failures(cluster.failures, cluster.workers);
  validate_shard_failures(cluster.shard_failures, cluster.servers);
}

}  // namespace hetps::cluster
