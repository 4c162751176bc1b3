// The resolved configuration of one run. Every field has a TOML key of the same dotted name
// (`train.lr`, `cluster.speeds`, ...), settable from a file or with `--set KEY=VALUE`.
// Resolution order, later wins: built-in defaults < the scenario's cluster < the scenario's
// frozen per-protocol training defaults < the config file < `--set`.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace hetps::config {

// A protocol parameter: numbers (integers and booleans included) or a choice among words.
using ParamValue = std::variant<double, std::string>;
using ProtocolParams = std::map<std::string, ParamValue>;

struct DataConfig {
  std::string name = "fashion-mnist";  // fashion-mnist | idx | mnist | synthetic
  std::string dir = "data";            // where <name>/ holds the IDX files (idx: dir itself)
  int classes = 10;                    // idx only: labels are 0..classes-1
  std::string partition = "iid";       // iid | noniid
  int classes_per_worker = 2;          // noniid only
  int batch_size = 32;                 // per worker
  int64_t synthetic_train = 8192;      // synthetic only: sizes of the generated sets
  int64_t synthetic_test = 2048;

  bool operator==(const DataConfig&) const = default;
};

struct ModelConfig {
  std::string name = "mlp";

  bool operator==(const ModelConfig&) const = default;
};

struct TrainConfig {
  double lr = 0.05;
  double momentum = 0.9;
  bool nesterov = false;
  double weight_decay = 0.0;
  std::string lr_schedule = "constant";  // constant | step | cosine
  int64_t lr_warmup_samples = 0;         // linear warm-up from 0, in samples processed
  int64_t lr_step_samples = 0;           // step: multiply by lr_step_gamma every this many samples
  double lr_step_gamma = 0.1;
  double max_time = std::numeric_limits<double>::infinity();  // seconds; virtual on sim
  int64_t max_samples = 300000;   // budget: samples processed across all workers
  double target_accuracy = 0.85;  // fraction in (0, 1]
  double eval_interval = 2.0;     // seconds between evaluations; virtual on sim
  bool stop_at_target = false;    // end the run once the target is reached

  bool operator==(const TrainConfig&) const = default;
};

// One explicit straggler episode: `worker` runs `slowdown` times slower in [start, start+duration).
struct StragglerEpisode {
  int worker = 0;
  double start = 0;
  double duration = 0;
  double slowdown = 1;

  bool operator==(const StragglerEpisode&) const = default;
};

// Random straggler episodes: each worker independently starts episodes as a Poisson process.
struct RandomStragglers {
  double rate_per_min = 0;   // expected episodes per worker per minute; 0 = none
  double mean_duration = 5;  // seconds, exponentially distributed
  double slowdown_min = 2;   // slowdown drawn uniformly from [min, max]
  double slowdown_max = 4;

  bool operator==(const RandomStragglers&) const = default;
};

// A fault injected into one worker at `time` seconds of engine time (virtual on sim, wall
// since the start on the real engines). A crash kills the worker and the engine tells the
// protocol; a hang leaves it silent without telling anyone, for the stall inspector to catch.
struct WorkerFailure {
  int worker = 0;
  double time = 0;
  std::string kind = "crash";  // crash | hang

  bool operator==(const WorkerFailure&) const = default;
};

// A server shard's process dies at `time` seconds of run time (the real engines only: the
// simulator's server is not a process). Its part of the model is gone, so the run ends, to be
// resumed from its last checkpoint by a new process for the shard.
struct ShardFailure {
  int shard = 0;
  double time = 0;

  bool operator==(const ShardFailure&) const = default;
};

struct ClusterConfig {
  std::string scenario = "hetero-compute";
  int workers = 8;
  int servers = 1;
  std::vector<double> speeds = {1.0};      // relative compute speed, cycled over workers
  double worker_gflops = 2.8;              // a speed-1 worker's compute rate
  double compute_noise = 0.05;             // std-dev of the lognormal step-time noise
  std::vector<double> link_gbps = {10.0};  // per-worker up/down link, cycled over workers
  std::vector<double> link_latency_ms = {0.05};
  double server_gbps = 10.0;  // each server shard's up/down link
  double server_latency_ms = 0.05;
  double apply_gbps = 80.0;  // server apply rate, in Gbit/s of update applied
  // sim: what a protocol's switch (Sync-Switch) holds the servers for, in pulls of the whole
  // model over an idle network; 0 makes a switch free.
  double switch_overhead_pulls = 1.0;
  std::vector<StragglerEpisode> stragglers;
  RandomStragglers random_stragglers;
  std::string trace;                         // CSV of per-worker relative speed over time
  std::vector<WorkerFailure> failures;       // at most one per worker
  std::vector<ShardFailure> shard_failures;  // at most one per shard

  bool operator==(const ClusterConfig&) const = default;
};

struct ProtocolConfig {
  std::string name = "bsp";
  ProtocolParams params;  // `protocol.<parameter>`; validated against the protocol's ParamSpecs

  bool operator==(const ProtocolConfig&) const = default;
};

struct RunConfig {
  // run_name in the summary and the run's directory name; defaults to the protocol's name.
  std::string name;
  // Intra-op and BLAS threads of each worker on the threads and mpi engines, and of each step
  // on sim: a run's bits depend on it (OpenBLAS rounds a split product differently).
  int threads_per_worker = 1;
  // Threads the server applies each update with (server::ServerOptions::apply_threads).
  int server_apply_threads = 1;
  // Real engines: a wait longer than the warning logs who is waited for; one longer than the
  // timeout stops the run with that message. Seconds of wall time.
  double stall_warning_s = 10;
  double stall_timeout_s = 120;  // >= stall_warning_s
  // mpi: the waits before training (every rank of the job at the start), which no stall
  // inspector watches yet; seconds of wall time.
  double start_timeout_s = 120;
  // The most intervals of each worker's activity timeline kept in memory and in timeline.csv
  // (metrics/activity_timeline.h): past it, cycles are sampled. 0 records no timeline.
  int64_t timeline_intervals = 4096;
  // A checkpoint every this many seconds of run time (virtual on sim); 0: only when the run
  // is stopped by SIGINT or SIGTERM. The newest `checkpoint_keep` are kept.
  double checkpoint_interval = 0;
  int checkpoint_keep = 2;

  bool operator==(const RunConfig&) const = default;
};

struct Config {
  uint64_t seed = 1;
  std::string engine = "sim";  // sim | threads | mpi
  ModelConfig model;
  DataConfig data;
  TrainConfig train;
  ClusterConfig cluster;
  ProtocolConfig protocol;
  RunConfig run;

  bool operator==(const Config&) const = default;
};

}  // namespace hetps::config
