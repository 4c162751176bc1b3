// A speed-1 step of a run's model, measured: the base that InjectedDelays pads a slower worker's
// steps to. Measured on a throwaway worker (worker 0's data, its own sampler), so the run's
// workers still meet their batches in the usual order.
#pragma once

#include "config/config.h"
#include "data/dataset.h"
#include "model/learner.h"
#include "params/layout.h"

namespace hetps::engine {

// The median of a few timed gradient steps after a warm-up, in seconds. Run it alone: other
// work on the same cores would make the step look slower than it is.
double measure_step_seconds(const config::Config& config, const data::Dataset& train,
                            model::Learner& learner);

// A few gradient steps of `learner` on the first batch of `train`, their results dropped: a
// thread's first steps on a model are slow (its heap arena grows; libtorch and OpenBLAS set up
// their per-thread state), and a run's clock should count training, not that. No worker's data
// sampler moves, so the run meets its batches in the usual order. Throws nothing: a model that
// fails here fails again at the worker's first step, where the engine reports it.
void warm_up(const data::Dataset& train, int batch_size, model::Learner& learner);

// What the server does for each asynchronous update, measured on a throwaway server of the
// run's options as a run meets it: a worker thread writes its gradient and pushes it; the server's
// thread wakes up, applies it (not in its cache: another core wrote it) and copies the new model
// for the workers that pull it. The median of a few after a warm-up, in Gbit/s of update, as
// `cluster.apply_gbps` takes it: the simulator calibrated with it and `worker_gflops` sees the
// server's turnaround the real engine has (bench/sim_vs_threads.sh). Timing only the apply and
// the copy, on the same buffers over and over, read a fifth of it (MLP on the 2-core VM: 36 us
// against about 170 us; the threads engine's server spent 200-290 us per update in a run).
double measure_apply_gbps(const config::Config& config, const params::ParamLayout& layout);

}  // namespace hetps::engine
