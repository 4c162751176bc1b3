// The end of a run's activity timeline, as every engine ends it.
#pragma once

#include "cluster/cluster_model.h"
#include "config/config.h"
#include "engine/engine.h"
#include "metrics/activity_timeline.h"
#include "metrics/records.h"

namespace hetps::engine {

// The timeline a run records: one worker's buffer per worker, `run.timeline_intervals` each.
metrics::ActivityTimeline make_timeline(const config::Config& config);

// Ends `timeline` at `end` (live workers waited until then; what an engine foresaw past it is
// cut), turns computing inside each worker's straggler episodes into straggling, hands it to
// `listener` and notes its cycle stride in `summary`. Does nothing when the run records no
// timeline.
void publish_timeline(metrics::ActivityTimeline& timeline, const cluster::ClusterModel& cluster,
                      double end, RunListener& listener, metrics::Summary& summary);

}  // namespace hetps::engine
