#include "config/schema.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "config/error.h"
#include "config/scenarios.h"
#include "config/table_list.h"

namespace hetps::config {
namespace {

const Schema<StragglerEpisode>& straggler_schema() {
  static const Schema<StragglerEpisode> schema({
      field("worker", Range::at_least(0), &StragglerEpisode::worker),
      field("start", Range::at_least(0), &StragglerEpisode::start),
      field("duration", Range::above(0), &StragglerEpisode::duration),
      field("slowdown", Range::at_least(1), &StragglerEpisode::slowdown),
  });
  return schema;
}

const Schema<WorkerFailure>& failure_schema() {
  static const Schema<WorkerFailure> schema({
      field("worker", Range::at_least(0), &WorkerFailure::worker),
      field("time", Range::at_least(0), &WorkerFailure::time),
      field("kind", Choices{{"crash", "hang"}}, &WorkerFailure::kind),
  });
  return schema;
}

const Schema<ShardFailure>& shard_failure_schema() {
  static const Schema<ShardFailure> schema({
      field("shard", Range::at_least(0), &ShardFailure::shard),
      field("time", Range::at_least(0), &ShardFailure::time),
  });
  return schema;
}

}  // namespace

void reject_unknown_key(const TableSite& site, const std::string& key, const std::string& table,
                        const std::vector<std::string>& known, const toml::node& node) {
  std::string table_name =
      site.prefix.empty() || table.empty() ? site.prefix + table : site.prefix + "." + table;
  if (table_name.empty()) table_name = "the top level";
  throw ConfigError(fmt::format("{}: unknown key {}; {} has: {}", site.source.where(node), key,
                                table_name, fmt::join(known, ", ")));
}

// Grouped by table, top-level keys first: the resolved config.toml is written in this order.
const Schema<Config>& config_schema() {
  using C = Config;
  using Train = TrainConfig;
  using Data = DataConfig;
  using Cluster = ClusterConfig;
  using Random = RandomStragglers;
  const Range positive = Range::above(0);
  const Range non_negative = Range::at_least(0);
  const Range at_least_one = Range::at_least(1);
  const Choices any_string;
  // Sizes (workers, servers, batch, data sets) have upper bounds so that a typo gets an error
  // message rather than an allocation failure.
  const Range synthetic_size = Range::between(1, 10'000'000);
  static const Schema<Config> schema({
      field("seed", non_negative, &C::seed),
      field("engine", Choices{{"sim", "threads", "mpi"}}, &C::engine),
      // Models register from the libtorch side; the command line checks the name.
      field("model.name", any_string, &C::model, &ModelConfig::name),
      field("data.name", any_string, &C::data, &Data::name),
      field("data.dir", any_string, &C::data, &Data::dir),
      // IDX labels are bytes.
      field("data.classes", Range::between(2, 256), &C::data, &Data::classes),
      field("data.partition", Choices{{"iid", "noniid"}}, &C::data, &Data::partition),
      field("data.classes_per_worker", Range::between(1, 1000), &C::data,
            &Data::classes_per_worker),
      field("data.batch_size", Range::between(1, 65536), &C::data, &Data::batch_size),
      field("data.synthetic_train", synthetic_size, &C::data, &Data::synthetic_train),
      field("data.synthetic_test", synthetic_size, &C::data, &Data::synthetic_test),
      field("train.lr", positive, &C::train, &Train::lr),
      field("train.momentum", Range::half_open(0, 1), &C::train, &Train::momentum),
      field("train.nesterov", Unconstrained{}, &C::train, &Train::nesterov),
      field("train.weight_decay", non_negative, &C::train, &Train::weight_decay),
      field("train.lr_schedule", Choices{{"constant", "step", "cosine"}}, &C::train,
            &Train::lr_schedule),
      field("train.lr_warmup_samples", non_negative, &C::train, &Train::lr_warmup_samples),
      field("train.lr_step_samples", non_negative, &C::train, &Train::lr_step_samples),
      field("train.lr_step_gamma", positive, &C::train, &Train::lr_step_gamma),
      field("train.max_time", positive.or_infinity(), &C::train, &Train::max_time),
      field("train.max_samples", at_least_one, &C::train, &Train::max_samples),
      field("train.target_accuracy", Range::left_open(0, 1), &C::train, &Train::target_accuracy),
      // A smaller interval has the simulator evaluate, not train.
      field("train.eval_interval", Range::at_least(0.001), &C::train, &Train::eval_interval),
      field("train.stop_at_target", Unconstrained{}, &C::train, &Train::stop_at_target),
      field("cluster.scenario", Choices::named(scenarios()), &C::cluster, &Cluster::scenario),
      field("cluster.workers", Range::between(1, 4096), &C::cluster, &Cluster::workers),
      field("cluster.servers", Range::between(1, 256), &C::cluster, &Cluster::servers),
      field("cluster.speeds", positive, &C::cluster, &Cluster::speeds),
      field("cluster.worker_gflops", positive, &C::cluster, &Cluster::worker_gflops),
      // At most 1, but not for a config hetps wrote: resolve.cpp.
      field("cluster.compute_noise", non_negative, &C::cluster, &Cluster::compute_noise),
      // inf: an ideal link, which adds no transfer time (and no injected delay).
      field("cluster.link_gbps", positive.or_infinity(), &C::cluster, &Cluster::link_gbps),
      field("cluster.link_latency_ms", non_negative, &C::cluster, &Cluster::link_latency_ms),
      field("cluster.server_gbps", positive.or_infinity(), &C::cluster, &Cluster::server_gbps),
      field("cluster.server_latency_ms", non_negative, &C::cluster, &Cluster::server_latency_ms),
      field("cluster.apply_gbps", positive, &C::cluster, &Cluster::apply_gbps),
      field("cluster.switch_overhead_pulls", Range::between(0, 1e6), &C::cluster,
            &Cluster::switch_overhead_pulls),
      // An episode sets all of its keys.
      table_list("cluster.stragglers",
                 TableList<StragglerEpisode>{straggler_schema(), straggler_schema().keys_of("")},
                 &C::cluster, &Cluster::stragglers),
      field("cluster.random_stragglers.rate_per_min", non_negative, &C::cluster,
            &Cluster::random_stragglers, &Random::rate_per_min),
      field("cluster.random_stragglers.mean_duration", positive, &C::cluster,
            &Cluster::random_stragglers, &Random::mean_duration),
      field("cluster.random_stragglers.slowdown_min", at_least_one, &C::cluster,
            &Cluster::random_stragglers, &Random::slowdown_min),
      field("cluster.random_stragglers.slowdown_max", at_least_one, &C::cluster,
            &Cluster::random_stragglers, &Random::slowdown_max),
      field("cluster.trace", any_string, &C::cluster, &Cluster::trace),
      // A failure may leave `kind` out: a crash unless it says otherwise.
      table_list("cluster.failures", TableList<WorkerFailure>{failure_schema(), {"worker", "time"}},
                 &C::cluster, &Cluster::failures),
      table_list("cluster.shard_failures",
                 TableList<ShardFailure>{shard_failure_schema(), {"shard", "time"}}, &C::cluster,
                 &Cluster::shard_failures),
      // The protocol's own parameters (`protocol.<parameter>`) depend on the protocol chosen:
      // they are read apart, see settings.h.
      field("protocol.name", RegisteredProtocol{}, &C::protocol, &ProtocolConfig::name),
      field("run.name", DirectoryName{}, &C::run, &RunConfig::name),
      field("run.threads_per_worker", at_least_one, &C::run, &RunConfig::threads_per_worker),
      field("run.server_apply_threads", Range::between(1, 64), &C::run,
            &RunConfig::server_apply_threads),
      // Finite: a wait never waits forever.
      field("run.stall_warning_s", positive, &C::run, &RunConfig::stall_warning_s),
      field("run.stall_timeout_s", positive, &C::run, &RunConfig::stall_timeout_s),
      field("run.start_timeout_s", positive, &C::run, &RunConfig::start_timeout_s),
      field("run.timeline_intervals", Range::between(0, 10'000'000), &C::run,
            &RunConfig::timeline_intervals),
      field("run.checkpoint_interval", non_negative, &C::run, &RunConfig::checkpoint_interval),
      field("run.checkpoint_keep", Range::between(1, 1000), &C::run, &RunConfig::checkpoint_keep),
  });
  return schema;
}

}  // namespace hetps::config
