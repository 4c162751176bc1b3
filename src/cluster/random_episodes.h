// The random straggler episodes of one worker (`cluster.random_stragglers`).
#pragma once

#include <cstdint>

#include "cluster/counter_random.h"
#include "cluster/episode.h"
#include "config/config.h"

namespace hetps::cluster {

// Episode starts form a Poisson process of rate `rate_per_min`; durations are exponential with
// mean `mean_duration`; slowdowns are uniform in [slowdown_min, slowdown_max]. The k-th episode
// is drawn from counters 3k..3k+2 of the stream (seed, worker), so it depends on nothing but
// (seed, worker, k):
//   RandomEpisodes episodes(config.random_stragglers, seed, 2);
//   Episode first = episodes.next();  // then the second, in order of start
class RandomEpisodes {
 public:
  // `config.rate_per_min` must be > 0.
  RandomEpisodes(const config::RandomStragglers& config, uint64_t seed, int worker);

  // The next episode; starts never decrease from one call to the next.
  Episode next();

 private:
  config::RandomStragglers config_;
  CounterStream stream_;
  int worker_;
  uint64_t drawn_ = 0;
  double last_start_ = 0;
};

}  // namespace hetps::cluster
