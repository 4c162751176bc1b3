#include "engine/run_timeline.h"

namespace hetps::engine {

metrics::ActivityTimeline make_timeline(const config::Config& config) {
  return metrics::ActivityTimeline(config.cluster.workers,
                                   static_cast<size_t>(config.run.timeline_intervals));
}

void publish_timeline(metrics::ActivityTimeline& timeline, const cluster::ClusterModel& cluster,
                      double end, RunListener& listener, metrics::Summary& summary) {
  if (!timeline.records()) return;
  timeline.end_at(end);
  for (const cluster::Episode& episode : cluster.episodes_until(end)) {
    timeline.worker(episode.worker).mark_straggling(episode.start, episode.end());
  }
  listener.on_timeline(timeline);
  summary.timeline_cycle_stride = timeline.cycle_stride();
  summary.timeline_whole_cycles = timeline.whole_cycles();
}

}  // namespace hetps::engine
