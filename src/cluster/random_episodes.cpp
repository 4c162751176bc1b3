#include "cluster/random_episodes.h"

namespace hetps::cluster {

RandomEpisodes::RandomEpisodes(const config::RandomStragglers& config, uint64_t seed, int worker)
    : config_(config),
      stream_(seed, RandomSource::random_stragglers, static_cast<uint64_t>(worker)),
      worker_(worker) {}

Episode RandomEpisodes::next() {
  uint64_t counter = 3 * drawn_++;
  double mean_gap = 60.0 / config_.rate_per_min;
  last_start_ += stream_.exponential(counter, mean_gap);
  double duration = stream_.exponential(counter + 1, config_.mean_duration);
  double slowdown = config_.slowdown_min +
                    (config_.slowdown_max - config_.slowdown_min) * stream_.uniform(counter + 2);
  return Episode{worker_, last_start_, duration, slowdown};
}

}  // namespace hetps::cluster
