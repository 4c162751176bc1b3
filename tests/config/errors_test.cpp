// Every bad setting is rejected with one message naming where it was given, the key, the
// value and what is allowed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "config/schema.h"
#include "config_test_util.h"
#include "protocol/registry.h"

namespace hetps::config {
namespace {

using testing::ConfigFile;
using ::testing::HasSubstr;
using testing::resolve_error;
using testing::resolve_sets;
using testing::settings_from;
using ::testing::StartsWith;

TEST(ConfigErrors, OutOfRangeNumbersNameKeyValueAndRange) {
  EXPECT_EQ(resolve_error({"cluster.workers=0"}),
            "--set cluster.workers=0: cluster.workers must be an integer in [1, 4096], got 0");
  EXPECT_EQ(resolve_error({"cluster.servers=0"}),
            "--set cluster.servers=0: cluster.servers must be an integer in [1, 256], got 0");
  EXPECT_EQ(resolve_error({"train.lr=-0.1"}),
            "--set train.lr=-0.1: train.lr must be a finite number > 0, got -0.1");
  EXPECT_EQ(resolve_error({"train.momentum=1.0"}),
            "--set train.momentum=1.0: train.momentum must be a number in [0, 1), got 1.0");
  EXPECT_EQ(resolve_error({"train.momentum=-0.5"}),
            "--set train.momentum=-0.5: train.momentum must be a number in [0, 1), got -0.5");
  EXPECT_EQ(resolve_error({"train.target_accuracy=0"}),
            "--set train.target_accuracy=0: train.target_accuracy must be a number in (0, 1], "
            "got 0");
  EXPECT_EQ(resolve_error({"train.target_accuracy=1.5"}),
            "--set train.target_accuracy=1.5: train.target_accuracy must be a number in (0, 1], "
            "got 1.5");
  EXPECT_EQ(resolve_error({"data.batch_size=0"}),
            "--set data.batch_size=0: data.batch_size must be an integer in [1, 65536], got 0");
  EXPECT_EQ(resolve_error({"train.eval_interval=0"}),
            "--set train.eval_interval=0: train.eval_interval must be a finite number >= 0.001, "
            "got 0");
  EXPECT_EQ(resolve_error({"train.max_samples=-5"}),
            "--set train.max_samples=-5: train.max_samples must be an integer >= 1, got -5");
  EXPECT_EQ(resolve_error({"seed=-1"}), "--set seed=-1: seed must be an integer >= 0, got -1");
  // IDX labels are bytes, and one class learns nothing.
  EXPECT_EQ(resolve_error({"data.name=idx", "data.classes=1"}),
            "--set data.classes=1: data.classes must be an integer in [2, 256], got 1");
  EXPECT_EQ(resolve_error({"data.name=idx", "data.classes=257"}),
            "--set data.classes=257: data.classes must be an integer in [2, 256], got 257");
}

TEST(ConfigErrors, BoundaryValuesAreAccepted) {
  EXPECT_EQ(
      resolve_error({"train.momentum=0", "train.target_accuracy=1", "cluster.workers=1",
                     "data.batch_size=1", "cluster.compute_noise=0", "train.eval_interval=0.001"}),
      "");
  EXPECT_EQ(resolve_error({"cluster.workers=4096", "cluster.servers=256", "data.batch_size=65536",
                           "data.name=synthetic", "data.synthetic_train=10000000",
                           "data.synthetic_test=10000000", "data.partition=noniid",
                           "data.classes_per_worker=1000"}),
            "");
}

// A size beyond what a run can hold is an error message, not an allocation failure later.
TEST(ConfigErrors, SizesHaveUpperBounds) {
  EXPECT_EQ(resolve_error({"cluster.workers=4097"}),
            "--set cluster.workers=4097: cluster.workers must be an integer in [1, 4096], got "
            "4097");
  EXPECT_EQ(resolve_error({"cluster.servers=257"}),
            "--set cluster.servers=257: cluster.servers must be an integer in [1, 256], got 257");
  EXPECT_EQ(resolve_error({"data.batch_size=65537"}),
            "--set data.batch_size=65537: data.batch_size must be an integer in [1, 65536], got "
            "65537");
  EXPECT_EQ(resolve_error({"data.synthetic_train=10000001"}),
            "--set data.synthetic_train=10000001: data.synthetic_train must be an integer in [1, "
            "10000000], got 10000001");
  EXPECT_EQ(resolve_error({"data.synthetic_test=10000001"}),
            "--set data.synthetic_test=10000001: data.synthetic_test must be an integer in [1, "
            "10000000], got 10000001");
  EXPECT_EQ(resolve_error({"data.classes_per_worker=1001"}),
            "--set data.classes_per_worker=1001: data.classes_per_worker must be an integer in "
            "[1, 1000], got 1001");
}

// A tiny interval would have the simulator evaluate without end.
TEST(ConfigErrors, EvalIntervalHasALowerBound) {
  EXPECT_EQ(resolve_error({"train.eval_interval=0.0009"}),
            "--set train.eval_interval=0.0009: train.eval_interval must be a finite number >= "
            "0.001, got 0.0009");
}

TEST(ConfigErrors, InfinityAndNanAreRejected) {
  EXPECT_EQ(resolve_error({"train.lr=inf"}),
            "--set train.lr=inf: train.lr must be a finite number > 0, got inf");
  EXPECT_EQ(resolve_error({"train.weight_decay=nan"}),
            "--set train.weight_decay=nan: train.weight_decay must be a finite number >= 0, got "
            "nan");
  EXPECT_EQ(resolve_error({"cluster.speeds=[1, inf]"}),
            "--set cluster.speeds=[1, inf]: cluster.speeds must be a finite number > 0 (for every "
            "worker) or a non-empty list of them (cycled over the workers), got [1, inf]");
  EXPECT_EQ(resolve_error({"cluster.stragglers=[{worker=0,start=inf,duration=1,slowdown=2}]"}),
            "--set cluster.stragglers=[{worker=0,start=inf,duration=1,slowdown=2}]: "
            "cluster.stragglers[0].start must be a finite number >= 0, got inf");
  // inf means "no limit" (max_time) or "an ideal link" (bandwidths) there, and nowhere else.
  const std::set<std::string> infinite_allowed = {"train.max_time", "cluster.link_gbps",
                                                  "cluster.server_gbps"};
  for (const auto& field : config_schema().fields()) {
    const bool allowed = infinite_allowed.contains(field.key);
    for (const char* value : {"inf", "-inf", "nan", "[inf]"}) {
      const std::string set = field.key + "=" + value;
      const bool positive_infinity = std::string_view(value).find("-") == std::string_view::npos &&
                                     std::string_view(value).find("inf") != std::string_view::npos;
      if (!(allowed && positive_infinity)) {
        EXPECT_NE(resolve_error({set}), "") << set;
      }
    }
  }
  EXPECT_EQ(resolve_error({"cluster.link_gbps=[inf]", "cluster.server_gbps=inf"}), "");
}

// inf is the default: no time limit.
TEST(ConfigErrors, MaxTimeAllowsInfinityOnly) {
  EXPECT_EQ(resolve_error({"train.max_time=inf"}), "");
  EXPECT_EQ(resolve_error({"train.max_time=nan"}),
            "--set train.max_time=nan: train.max_time must be a number > 0, or inf, got nan");
  EXPECT_EQ(resolve_error({"train.max_time=-inf"}),
            "--set train.max_time=-inf: train.max_time must be a number > 0, or inf, got -inf");
}

// The run's name is its directory's name: nothing that leaves or replaces the parent.
TEST(ConfigErrors, RunNameIsOneDirectoryName) {
  for (const char* name : {"..", ".", "a/b", "/", "\"\""}) {
    const std::string set = std::string("run.name=") + name;
    EXPECT_THAT(resolve_error({set}),
                StartsWith("--set " + set +
                           ": run.name must be a string usable as a directory name: non-empty, "
                           "without '/', not \".\" or \"..\", got "))
        << set;
  }
  EXPECT_EQ(resolve_error({"run.name=.."}),
            "--set run.name=..: run.name must be a string usable as a directory name: "
            "non-empty, without '/', not \".\" or \"..\", got \"..\"");
  EXPECT_EQ(resolve_error({"run.name=..bsp.v2"}), "");
}

TEST(ConfigErrors, WrongTypesNameWhatIsExpected) {
  EXPECT_EQ(resolve_error({"train.lr=fast"}),
            "--set train.lr=fast: train.lr must be a finite number > 0, got \"fast\"");
  EXPECT_EQ(resolve_error({"cluster.workers=2.5"}),
            "--set cluster.workers=2.5: cluster.workers must be an integer in [1, 4096], got "
            "2.5");
  EXPECT_EQ(resolve_error({"train.nesterov=1"}),
            "--set train.nesterov=1: train.nesterov must be true or false, got 1");
  EXPECT_THAT(resolve_error({"run.name=7"}),
              StartsWith("--set run.name=7: run.name must be a string usable as a directory "
                         "name: "));
  EXPECT_EQ(resolve_error({"cluster=3"}), "--set cluster=3: cluster must be a table, got 3");
  EXPECT_EQ(resolve_error({"cluster.workers=99999999999"}),
            "--set cluster.workers=99999999999: cluster.workers must be an integer in [1, 4096], "
            "got 99999999999");
}

TEST(ConfigErrors, ListsAreCheckedElementByElement) {
  EXPECT_EQ(resolve_error({"cluster.speeds=[1,-1]"}),
            "--set cluster.speeds=[1,-1]: cluster.speeds must be a finite number > 0 (for every "
            "worker) or a non-empty list of them (cycled over the workers), got [1, -1]");
  EXPECT_EQ(resolve_error({"cluster.link_gbps=[]"}),
            "--set cluster.link_gbps=[]: cluster.link_gbps must be a number > 0, or inf (for "
            "every worker) or a non-empty list of them (cycled over the workers), got []");
  EXPECT_EQ(resolve_error({"cluster.link_latency_ms=-0.5"}),
            "--set cluster.link_latency_ms=-0.5: cluster.link_latency_ms must be a finite number "
            ">= 0 (for every worker) or a non-empty list of them (cycled over the workers), got "
            "-0.5");
  EXPECT_EQ(resolve_error({"cluster.link_gbps=\"fast\""}),
            "--set cluster.link_gbps=\"fast\": cluster.link_gbps must be a number > 0, or inf (for "
            "every worker) or a non-empty list of them (cycled over the workers), got \"fast\"");
}

// A bare number is every worker's, as a list of one is.
TEST(ConfigErrors, APerWorkerListMayBeABareNumber) {
  const Config config = resolve_sets({"cluster.workers=3", "cluster.link_gbps=inf",
                                      "cluster.link_latency_ms=0", "cluster.speeds=0.5"});
  EXPECT_EQ(config.cluster.link_gbps, std::vector<double>{INFINITY});
  EXPECT_EQ(config.cluster.link_latency_ms, std::vector<double>{0.0});
  EXPECT_EQ(config.cluster.speeds, std::vector<double>{0.5});
}

// A value that opens a list, a table or a quoted string is TOML gone wrong, not a word.
TEST(ConfigErrors, BrokenTomlInSetIsNamedAsSuch) {
  EXPECT_THAT(resolve_error({"cluster.speeds=[1,"}),
              StartsWith("--set cluster.speeds=[1,: the value is not valid TOML ("));
  EXPECT_THAT(resolve_error({"cluster.random_stragglers={rate_per_min=1"}),
              HasSubstr("write a list as [1, 0.5], a table as { a = 1 }"));
  EXPECT_THAT(resolve_error({"run.name=\"open"}),
              StartsWith("--set run.name=\"open: the value is not valid TOML ("));
  // A bare word is still a string.
  EXPECT_EQ(resolve_error({"run.name=my-run"}), "");
}

// A shorter list is cycled over the workers; a longer one, whose tail no worker would take, is
// refused by name, wherever it was set.
TEST(ConfigErrors, APerWorkerListLongerThanTheWorkersIsRefused) {
  EXPECT_EQ(
      resolve_error({"cluster.workers=3", "cluster.speeds=[1, 0.5, 0.25, 0.1]"}),
      "--set cluster.speeds=[1, 0.5, 0.25, 0.1]: cluster.speeds has 4 entries for "
      "cluster.workers = 3: give one per worker, fewer (cycled over the workers), or none (the "
      "scenario's, spread over the workers)");
  EXPECT_EQ(
      resolve_error({"cluster.workers=1", "cluster.link_gbps=[10, 1]"}),
      "--set cluster.link_gbps=[10, 1]: cluster.link_gbps has 2 entries for "
      "cluster.workers = 1: give one per worker, fewer (cycled over the workers), or none (the "
      "scenario's, spread over the workers)");
  const ConfigFile file("[cluster]\nworkers = 2\nlink_latency_ms = [0.1, 0.1, 2.0]\n");
  EXPECT_EQ(resolve_error({}, &file),
            file.path() +
                ":3: cluster.link_latency_ms has 3 entries for cluster.workers = 2: give one per "
                "worker, fewer (cycled over the workers), or none (the scenario's, spread over "
                "the workers)");
  EXPECT_EQ(resolve_error({"cluster.workers=3", "cluster.speeds=[1, 0.5, 0.25]"}), "");
  EXPECT_EQ(resolve_error({"cluster.workers=3", "cluster.speeds=[1, 0.5]"}), "");
}

TEST(ConfigErrors, UnknownWordsListTheChoices) {
  EXPECT_EQ(resolve_error({"engine=gpu"}),
            "--set engine=gpu: engine must be one of: sim, threads, mpi, got \"gpu\"");
  EXPECT_EQ(resolve_error({"cluster.scenario=cloud"}),
            "--set cluster.scenario=cloud: cluster.scenario must be one of: hetero-compute, "
            "hetero-network, got \"cloud\"");
  EXPECT_EQ(resolve_error({"data.partition=random"}),
            "--set data.partition=random: data.partition must be one of: iid, noniid, got "
            "\"random\"");
  EXPECT_EQ(resolve_error({"train.lr_schedule=linear"}),
            "--set train.lr_schedule=linear: train.lr_schedule must be one of: constant, step, "
            "cosine, got \"linear\"");
  EXPECT_EQ(resolve_error({"protocol.name=gossip"}),
            "--set protocol.name=gossip: protocol.name must be one of: " +
                protocol::protocol_names() + ", got \"gossip\"");
}

TEST(ConfigErrors, UnknownKeysListTheKeysOfTheirTable) {
  EXPECT_THAT(resolve_error({"train.lrr=0.1"}),
              StartsWith("--set train.lrr=0.1: unknown key train.lrr; train has: lr, momentum, "
                         "nesterov, weight_decay, "));
  EXPECT_THAT(resolve_error({"bogus=1"}),
              StartsWith("--set bogus=1: unknown key bogus; the top level has: seed, engine, "
                         "model, data, train, cluster, protocol, run"));
  EXPECT_EQ(resolve_error({"cluster.random_stragglers.rate=1"}),
            "--set cluster.random_stragglers.rate=1: unknown key cluster.random_stragglers.rate; "
            "cluster.random_stragglers has: rate_per_min, mean_duration, slowdown_min, "
            "slowdown_max");
}

// The registry's messages, prefixed with where the value was given.
TEST(ConfigErrors, ProtocolParametersAreCheckedAgainstTheProtocol) {
  EXPECT_EQ(resolve_error({"protocol.name=ssp", "protocol.stale=8"}),
            "--set protocol.stale=8: protocol.stale: protocol 'ssp' has no parameter 'stale' (its "
            "parameters: staleness)");
  EXPECT_EQ(resolve_error({"protocol.name=ssp", "protocol.staleness=2.5"}),
            "--set protocol.staleness=2.5: protocol.staleness: expected an integer, got 2.5");
  EXPECT_EQ(resolve_error({"protocol.name=ssp", "protocol.staleness=-1"}),
            "--set protocol.staleness=-1: protocol.staleness: expected an integer in [0, "
            "1000000], got -1");
  EXPECT_EQ(resolve_error({"protocol.name=bsp", "protocol.staleness=8"}),
            "--set protocol.staleness=8: protocol.staleness: protocol 'bsp' has no parameter "
            "'staleness' (its parameters: none)");
  EXPECT_EQ(resolve_error({"protocol.staleness=[1]"}),
            "--set protocol.staleness=[1]: protocol.staleness must be a number or a word, got [1]");
  EXPECT_EQ(resolve_error({"protocol.name=ssp", "protocol.staleness=true"}),
            "--set protocol.staleness=true: protocol.staleness must be a number or a word (a "
            "switch takes \"on\" or \"off\"), got true");
  EXPECT_EQ(resolve_error({"protocol.name=ashl", "protocol.compression=false"}),
            "--set protocol.compression=false: protocol.compression must be a number or a word (a "
            "switch takes \"on\" or \"off\"), got false");
}

TEST(ConfigErrors, StragglersNameTheEpisode) {
  EXPECT_EQ(resolve_error({"cluster.stragglers=[{worker=0,start=0,duration=1,slowdown=0.5}]"}),
            "--set cluster.stragglers=[{worker=0,start=0,duration=1,slowdown=0.5}]: "
            "cluster.stragglers[0].slowdown must be a finite number >= 1, got 0.5");
  EXPECT_EQ(resolve_error({"cluster.stragglers=[{worker=0,start=0,slowdown=2}]"}),
            "--set cluster.stragglers=[{worker=0,start=0,slowdown=2}]: cluster.stragglers[0] "
            "must be a table that sets duration, got { slowdown = 2, start = 0, worker = 0 }");
  EXPECT_EQ(
      resolve_error({"cluster.stragglers=[{worker=0,start=0,duration=1,slowdown=2,who=1}]"}),
      "--set cluster.stragglers=[{worker=0,start=0,duration=1,slowdown=2,who=1}]: unknown key "
      "cluster.stragglers[0].who; cluster.stragglers[0] has: worker, start, duration, slowdown");
  EXPECT_EQ(resolve_error({"cluster.stragglers=5"}),
            "--set cluster.stragglers=5: cluster.stragglers must be a list of tables {worker, "
            "start, duration, slowdown}, got 5");
}

TEST(ConfigErrors, FailuresNameTheEntry) {
  EXPECT_EQ(resolve_error({"cluster.failures=[{worker=0,time=1,kind=\"explode\"}]"}),
            "--set cluster.failures=[{worker=0,time=1,kind=\"explode\"}]: "
            "cluster.failures[0].kind must be one of: crash, hang, got \"explode\"");
  EXPECT_EQ(resolve_error({"cluster.failures=[{worker=0,time=-1}]"}),
            "--set cluster.failures=[{worker=0,time=-1}]: cluster.failures[0].time must be a "
            "finite number >= 0, got -1");
  EXPECT_EQ(resolve_error({"cluster.failures=[{worker=0,time=1},{worker=1}]"}),
            "--set cluster.failures=[{worker=0,time=1},{worker=1}]: cluster.failures[1] must be a "
            "table that sets time, got { worker = 1 }");
  EXPECT_EQ(resolve_error({"cluster.failures=[{worker=0,time=1,at=2}]"}),
            "--set cluster.failures=[{worker=0,time=1,at=2}]: unknown key "
            "cluster.failures[0].at; cluster.failures[0] has: worker, time, kind");
  EXPECT_EQ(resolve_error({"cluster.failures=[3]"}),
            "--set cluster.failures=[3]: cluster.failures must be a list of tables {worker, "
            "time, kind}, got [3]");
}

TEST(ConfigErrors, ShardFailuresNameTheEntry) {
  EXPECT_EQ(resolve_error({"cluster.shard_failures=[{shard=0,time=-1}]"}),
            "--set cluster.shard_failures=[{shard=0,time=-1}]: cluster.shard_failures[0].time "
            "must be a finite number >= 0, got -1");
  EXPECT_EQ(resolve_error({"cluster.shard_failures=[{shard=-1,time=1}]"}),
            "--set cluster.shard_failures=[{shard=-1,time=1}]: cluster.shard_failures[0].shard "
            "must be an integer >= 0, got -1");
  EXPECT_EQ(resolve_error({"cluster.shard_failures=[{shard=0}]"}),
            "--set cluster.shard_failures=[{shard=0}]: cluster.shard_failures[0] must be a table "
            "that sets time, got { shard = 0 }");
  EXPECT_EQ(resolve_error({"cluster.shard_failures=[{shard=0,time=1,kind=\"hang\"}]"}),
            "--set cluster.shard_failures=[{shard=0,time=1,kind=\"hang\"}]: unknown key "
            "cluster.shard_failures[0].kind; cluster.shard_failures[0] has: shard, time");
  EXPECT_EQ(resolve_error({"cluster.shard_failures=[{shard=1,time=1}]"}),
            "cluster.shard_failures[0].shard = 1: must be in [0, 1) (cluster.servers)");
  EXPECT_EQ(resolve_error({"cluster.servers=2",
                           "cluster.shard_failures=[{shard=1,time=1},{shard=1,time=2}]"}),
            "cluster.shard_failures[1].shard = 1: already fails in cluster.shard_failures[0]; a "
            "shard fails once");
}

TEST(ConfigErrors, RunLimitsAreChecked) {
  EXPECT_EQ(resolve_error({"run.threads_per_worker=0"}),
            "--set run.threads_per_worker=0: run.threads_per_worker must be an integer >= 1, got "
            "0");
  EXPECT_EQ(resolve_error({"run.server_apply_threads=65"}),
            "--set run.server_apply_threads=65: run.server_apply_threads must be an integer in "
            "[1, 64], got 65");
  EXPECT_EQ(resolve_error({"run.stall_warning_s=0"}),
            "--set run.stall_warning_s=0: run.stall_warning_s must be a finite number > 0, got 0");
  EXPECT_EQ(resolve_error({"run.stall_timeout_s=inf"}),
            "--set run.stall_timeout_s=inf: run.stall_timeout_s must be a finite number > 0, got "
            "inf");
}

// The cluster's own check (cluster::validate), raised as a ConfigError.
TEST(ConfigErrors, ChecksAcrossKeys) {
  EXPECT_EQ(resolve_error({"cluster.workers=2",
                           "cluster.stragglers=[{worker=2,start=0,duration=1,slowdown=2}]"}),
            "cluster.stragglers[0].worker = 2: must be in [0, 2) (cluster.workers)");
  EXPECT_EQ(resolve_error({"cluster.random_stragglers={slowdown_min=3, slowdown_max=2}"}),
            "cluster.random_stragglers.slowdown_max = 2: must be a finite number >= slowdown_min "
            "(3)");
  EXPECT_EQ(resolve_error({"train.lr_schedule=step"}),
            "train.lr_step_samples must be >= 1 with train.lr_schedule = \"step\", got 0");
  EXPECT_EQ(resolve_error({"cluster.workers=4", "cluster.failures=[{worker=4,time=0}]"}),
            "cluster.failures[0].worker = 4: must be in [0, 4) (cluster.workers)");
  EXPECT_EQ(resolve_error({"cluster.failures=[{worker=1,time=0},{worker=1,time=5,kind=\"hang\"}]"}),
            "cluster.failures[1].worker = 1: already fails in cluster.failures[0]; a worker "
            "fails once");
  EXPECT_EQ(resolve_error({"run.stall_timeout_s=5"}),
            "run.stall_timeout_s must be >= run.stall_warning_s (10), got 5");
  EXPECT_EQ(resolve_error({"run.stall_warning_s=30", "run.stall_timeout_s=20.5"}),
            "run.stall_timeout_s must be >= run.stall_warning_s (30), got 20.5");
  EXPECT_EQ(resolve_error({"run.stall_warning_s=30", "run.stall_timeout_s=30"}), "");
}

TEST(ConfigErrors, FileErrorsNameTheFileAndLine) {
  const ConfigFile file("seed = 3\n\n[train]\nlr = -1.0\n");
  EXPECT_EQ(resolve_error({}, &file),
            file.path() + ":4: train.lr must be a finite number > 0, got -1.0");
}

TEST(ConfigErrors, InvalidTomlNamesTheLineOfTheParseError) {
  const ConfigFile file("seed = 3\ncluster.speeds = [1,\n");
  EXPECT_THAT(resolve_error({}, &file), StartsWith(file.path() + ":2:"));
  EXPECT_THAT(resolve_error({}, &file), HasSubstr("invalid TOML: "));
}

TEST(ConfigErrors, UnreadableFileIsNamed) {
  UserSettings settings;
  try {
    settings.add_file("/no/such/dir/exp.toml");
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), StartsWith("cannot read config file /no/such/dir/exp.toml: "));
  }
}

// A protocol parameter that acts only in another parameter's mode is refused outside it, unless
// it keeps its default (a run's config.toml holds every parameter and must read back).
TEST(ConfigErrors, AParameterThatWouldDoNothingIsRefused) {
  EXPECT_EQ(resolve_error({"protocol.name=sync_switch", "protocol.straggler_factor=2"}),
            "--set protocol.straggler_factor=2: protocol.straggler_factor acts only with "
            "protocol.online = \"greedy\" or \"elastic\"; protocol.online is \"none\", so it would "
            "do nothing");
  EXPECT_EQ(resolve_error({"protocol.name=sync_switch", "protocol.online=greedy",
                           "protocol.expected_episode_s=3"}),
            "--set protocol.expected_episode_s=3: protocol.expected_episode_s acts only with "
            "protocol.online = \"elastic\"; protocol.online is \"greedy\", so it would do nothing");
  EXPECT_EQ(resolve_error({"protocol.name=sync_switch", "protocol.switch_overhead_s=5"}),
            "--set protocol.switch_overhead_s=5: protocol.switch_overhead_s acts only with "
            "protocol.online = \"elastic\"; protocol.online is \"none\", so it would do nothing");
  EXPECT_EQ(resolve_error({"protocol.name=petrel", "protocol.dbscan_min_points=3"}),
            "--set protocol.dbscan_min_points=3: protocol.dbscan_min_points acts only with "
            "protocol.grouping = \"dbscan\"; protocol.grouping is \"kmeans\", so it would do "
            "nothing");
  EXPECT_EQ(resolve_error(
                {"protocol.name=ashl", "protocol.compression=off", "protocol.error_feedback=off"}),
            "--set protocol.error_feedback=off: protocol.error_feedback acts only with "
            "protocol.compression = \"on\"; protocol.compression is \"off\", so it would do "
            "nothing");
  EXPECT_THAT(resolve_error({"protocol.name=petrel", "protocol.grouping=dbscan",
                             "protocol.homogeneity_threshold=0.5"}),
              HasSubstr("protocol.homogeneity_threshold acts only with protocol.grouping = "
                        "\"kmeans\""));
  for (const char* keep_ratio :
       {"protocol.r_preset_ahl=0.05", "protocol.r_preset_shl=0.5", "protocol.min_ratio=0.05"}) {
    EXPECT_THAT(resolve_error({"protocol.name=ashl", "protocol.compression=off", keep_ratio}),
                HasSubstr("acts only with protocol.compression = \"on\"; protocol.compression "
                          "is \"off\", so it would do nothing"))
        << keep_ratio;
    EXPECT_EQ(resolve_error({"protocol.name=ashl", keep_ratio}), "") << keep_ratio;
  }
  EXPECT_EQ(resolve_error({"protocol.name=sync_switch", "protocol.momentum_rule=zero",
                           "protocol.ramp_steps=7"}),
            "--set protocol.ramp_steps=7: protocol.ramp_steps acts only with "
            "protocol.momentum_rule = \"ramped\" or \"multistep\"; protocol.momentum_rule is "
            "\"zero\", so it would do nothing");
  EXPECT_EQ(resolve_error({"protocol.name=sync_switch", "protocol.momentum_rule=multistep",
                           "protocol.ramp_steps=7"}),
            "");
  EXPECT_EQ(resolve_error({"protocol.name=sync_switch", "protocol.straggler_factor=1.5"}), "");
  EXPECT_EQ(resolve_error({"protocol.name=sync_switch", "protocol.online=elastic",
                           "protocol.straggler_factor=2", "protocol.expected_episode_s=3"}),
            "");
  EXPECT_EQ(resolve_error(
                {"protocol.name=petrel", "protocol.grouping=dbscan", "protocol.dbscan_eps=0.5"}),
            "");
}

TEST(ConfigErrors, ASettingThatWouldDoNothingIsRefused) {
  EXPECT_EQ(resolve_error({"train.lr_step_gamma=0.5"}),
            "--set train.lr_step_gamma=0.5: train.lr_step_gamma acts only with train.lr_schedule = "
            "\"step\"; train.lr_schedule is \"constant\", so it would do nothing");
  EXPECT_EQ(
      resolve_error({"train.lr_schedule=cosine", "train.lr_step_samples=1000"}),
      "--set train.lr_step_samples=1000: train.lr_step_samples acts only with "
      "train.lr_schedule = \"step\"; train.lr_schedule is \"cosine\", so it would do nothing");
  EXPECT_EQ(resolve_error({"engine=threads", "cluster.switch_overhead_pulls=5"}),
            "--set cluster.switch_overhead_pulls=5: cluster.switch_overhead_pulls acts only with "
            "engine = \"sim\"; engine is \"threads\", so it would do nothing");
  for (const char* simulated :
       {"cluster.worker_gflops=1", "cluster.compute_noise=0.5", "cluster.apply_gbps=0.01"}) {
    for (const char* engine : {"engine=threads", "engine=mpi"}) {
      EXPECT_THAT(resolve_error({engine, simulated}),
                  HasSubstr("acts only with engine = \"sim\"; engine is \""))
          << engine << " " << simulated;
    }
    EXPECT_EQ(resolve_error({simulated}), "") << simulated;
  }
  EXPECT_EQ(resolve_error({"data.classes_per_worker=5"}),
            "--set data.classes_per_worker=5: data.classes_per_worker acts only with "
            "data.partition = \"noniid\"; data.partition is \"iid\", so it would do nothing");
  EXPECT_EQ(resolve_error({"data.partition=noniid", "data.classes_per_worker=5"}), "");
  EXPECT_EQ(resolve_error({"data.classes=5"}),
            "--set data.classes=5: data.classes acts only with data.name = \"idx\"; data.name "
            "is \"fashion-mnist\", so it would do nothing");
  EXPECT_EQ(resolve_error({"data.name=idx", "data.classes=5"}), "");
  EXPECT_EQ(resolve_error({"data.name=mnist", "data.synthetic_train=1024"}),
            "--set data.synthetic_train=1024: data.synthetic_train acts only with data.name = "
            "\"synthetic\"; data.name is \"mnist\", so it would do nothing");
  EXPECT_EQ(resolve_error({"data.synthetic_test=512"}),
            "--set data.synthetic_test=512: data.synthetic_test acts only with data.name = "
            "\"synthetic\"; data.name is \"fashion-mnist\", so it would do nothing");
  EXPECT_EQ(resolve_error(
                {"data.name=synthetic", "data.synthetic_train=1024", "data.synthetic_test=512"}),
            "");
  EXPECT_EQ(resolve_error({"data.name=synthetic", "data.dir=/big/disk"}),
            "--set data.dir=/big/disk: data.dir acts only with data.name = \"fashion-mnist\" or "
            "\"mnist\" or \"idx\"; data.name is \"synthetic\", so it would do nothing");
  EXPECT_EQ(resolve_error({"data.name=mnist", "data.dir=/big/disk"}), "");
  EXPECT_EQ(resolve_error({"data.name=mnist", "data.classes=10"}), "");
  EXPECT_EQ(resolve_error(
                {"train.lr_step_gamma=0.1", "engine=threads", "cluster.switch_overhead_pulls=1"}),
            "");
  EXPECT_EQ(resolve_error({"train.lr_schedule=step", "train.lr_step_samples=1000",
                           "train.lr_step_gamma=0.5"}),
            "");
}

// A step schedule whose first step lies past the budget never moves the learning rate.
TEST(ConfigErrors, AStepScheduleThatNeverStepsIsRefused) {
  EXPECT_EQ(resolve_error(
                {"train.lr_schedule=step", "train.lr_step_samples=2000", "train.max_samples=2000"}),
            "--set train.lr_step_samples=2000: train.lr_step_samples = 2000: the run's budget "
            "(train.max_samples = 2000, from --set train.max_samples=2000) ends before the first "
            "step, so train.lr_schedule = \"step\" would do nothing; expected fewer samples "
            "than the budget");
  EXPECT_EQ(resolve_error(
                {"train.lr_schedule=step", "train.lr_step_samples=1999", "train.max_samples=2000"}),
            "");
}

// A warm-up as long as the budget still acts (the rate rises all run), so it is said, not refused.
TEST(ConfigErrors, AWarmUpAsLongAsTheBudgetIsWarnedOf) {
  const auto warnings_for = [](std::initializer_list<std::string_view> sets) {
    std::vector<std::string> warnings;
    resolve(settings_from(sets), {.warn = [&](const std::string& w) { warnings.push_back(w); }});
    return warnings;
  };
  EXPECT_THAT(warnings_for({"train.lr_warmup_samples=2000", "train.max_samples=2000"}),
              ::testing::ElementsAre(
                  "train.lr_warmup_samples = 2000 is not below the run's budget "
                  "(train.max_samples = 2000): the learning rate rises for the whole run and "
                  "never reaches train.lr = 0.05"));
  EXPECT_THAT(warnings_for({"train.lr_warmup_samples=1999", "train.max_samples=2000"}),
              ::testing::IsEmpty());
}

// Plain SGD with a look-ahead along no momentum: PyTorch refuses it too.
TEST(ConfigErrors, NesterovWithoutMomentumIsRefused) {
  EXPECT_EQ(resolve_error({"train.nesterov=true", "train.momentum=0"}),
            "--set train.nesterov=true: train.nesterov acts only with train.momentum > 0; it is "
            "0, so it would do nothing");
  // ASP's frozen momentum is 0.
  EXPECT_THAT(resolve_error({"protocol.name=asp", "train.nesterov=true"}),
              ::testing::StartsWith("--set train.nesterov=true: train.nesterov acts only with"));
  EXPECT_EQ(resolve_error({"protocol.name=asp", "train.nesterov=false"}), "");
  EXPECT_EQ(resolve_error({"train.nesterov=true", "train.momentum=0.5"}), "");
  // In compare it serves the entries with momentum, and compare checks that there is one.
  EXPECT_FALSE(resolve(settings_from({"protocol.name=asp", "train.nesterov=true"}),
                       {.compare_entry = "--protocols entry \"asp\""})
                   .train.momentum > 0);
}

TEST(ConfigErrors, RandomStragglersSettingsWithoutAnyEpisodeAreRefused) {
  EXPECT_EQ(resolve_error({"cluster.random_stragglers.slowdown_max=8"}),
            "--set cluster.random_stragglers.slowdown_max=8: "
            "cluster.random_stragglers.slowdown_max acts only with "
            "cluster.random_stragglers.rate_per_min > 0; it is 0, so it would do nothing");
  EXPECT_EQ(resolve_error({"cluster.random_stragglers.mean_duration=2",
                           "cluster.random_stragglers.rate_per_min=0.5"}),
            "");
  EXPECT_EQ(resolve_error({"cluster.random_stragglers.slowdown_min=2"}), "");  // its default
}

TEST(ConfigErrors, ComputeNoiseIsNoiseAtMostOne) {
  EXPECT_EQ(resolve_error({"cluster.compute_noise=1"}), "");
  EXPECT_EQ(resolve_error({"cluster.compute_noise=1.5"}),
            "--set cluster.compute_noise=1.5: cluster.compute_noise must be a number in [0, 1], "
            "got 1.5");
  // An earlier hetps took it: its runs stay resumable.
  EXPECT_EQ(
      resolve(testing::settings_from({"cluster.compute_noise=1.5"}), {.written_by_hetps = true})
          .cluster.compute_noise,
      1.5);
}

// A config hetps wrote (a run's config.toml on resume) may hold such a setting that an earlier
// hetps took: refusing it would leave the run unresumable.
TEST(ConfigErrors, AnIdleSettingInAConfigHetpsWroteIsTaken) {
  const UserSettings written =
      testing::settings_from({"data.name=mnist", "data.synthetic_train=1024"});
  EXPECT_THROW(resolve(written), ConfigError);
  EXPECT_EQ(resolve(written, {.written_by_hetps = true}).data.synthetic_train, 1024);
  // A protocol parameter too (ramp_steps was taken with any momentum rule before cb8da6a).
  const UserSettings ramp = testing::settings_from(
      {"protocol.name=sync_switch", "protocol.momentum_rule=zero", "protocol.ramp_steps=100"});
  EXPECT_THROW(resolve(ramp), ConfigError);
  EXPECT_EQ(resolve(ramp, {.written_by_hetps = true}).protocol.params.at("ramp_steps"),
            ParamValue{100.0});
}

// 4 workers x batch 10 on 4,000 samples: the run has 100 BSP rounds, and x = 0.5 of S = 199
// rounds (99.5) to the 100th, where the run ends: the switch would never come.
TEST(ConfigErrors, ASyncSwitchBudgetWhoseSwitchOutlastsTheRunIsRefused) {
  const auto with_budget = [](std::string_view budget) {
    return resolve_error({"protocol.name=sync_switch", "cluster.workers=4", "data.batch_size=10",
                          "train.max_samples=4000", "protocol.bsp_fraction=0.5", budget});
  };
  EXPECT_EQ(with_budget("protocol.budget_steps=199"),
            "--set protocol.budget_steps=199: protocol.budget_steps = 199 puts Sync-Switch's "
            "switch after round(0.5 x 199) = 100 BSP rounds, but the run's budget is 100 BSP "
            "rounds (train.max_samples = 4000 / (4 workers x batch 10)): the switch would never "
            "come; give budget_steps at most 198 (0: the run's budget)");
  EXPECT_EQ(with_budget("protocol.budget_steps=198"), "");
  EXPECT_EQ(with_budget("protocol.budget_steps=0"), "");
  // 11 rounds; 0.7 x 15 is 10.5 in doubles, which rounds to 11, though 10.5 / 0.7 is above 15.
  const auto at_seven_tenths = [](std::string_view budget) {
    return resolve_error({"protocol.name=sync_switch", "cluster.workers=4", "data.batch_size=10",
                          "train.max_samples=440", "protocol.bsp_fraction=0.7", budget});
  };
  EXPECT_THAT(at_seven_tenths("protocol.budget_steps=15"),
              HasSubstr("give budget_steps at most 14 (0: the run's budget)"));
  EXPECT_EQ(at_seven_tenths("protocol.budget_steps=14"), "");
  // One round in all, and x = 0.5 rounds any S to it.
  EXPECT_THAT(resolve_error({"protocol.name=sync_switch", "cluster.workers=4", "data.batch_size=10",
                             "train.max_samples=40", "protocol.bsp_fraction=0.5",
                             "protocol.budget_steps=1"}),
              HasSubstr("the switch would never come; no budget_steps switches at this "
                        "bsp_fraction: lower it, or raise train.max_samples"));
  EXPECT_EQ(resolve_error({"protocol.name=sync_switch", "cluster.workers=4", "data.batch_size=10",
                           "train.max_samples=4000", "protocol.bsp_fraction=1",
                           "protocol.budget_steps=100000"}),
            "");
}

// Read whole, and again for its digest: a FIFO would block the run, and /dev/zero never end.
TEST(ConfigErrors, ATraceThatIsNoFileIsRefused) {
  const std::string fifo = ::testing::TempDir() + "ConfigErrors.trace-fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(resolve_error({"cluster.trace=" + fifo}),
            "cluster.trace '" + fifo + "': a FIFO; expected a CSV file");
  std::filesystem::remove(fifo);
  EXPECT_EQ(resolve_error({"cluster.trace=/dev/zero"}),
            "cluster.trace '/dev/zero': a device; expected a CSV file");
  EXPECT_EQ(resolve_error({"cluster.trace=/tmp"}),
            "cluster.trace '/tmp': a directory; expected a CSV file");
}

// Taken as a bare word, it was "not an integer", quoted, which it is.
TEST(ConfigErrors, AnIntegerPastItsRangeIsSaidToBe) {
  EXPECT_EQ(resolve_error({"seed=18446744073709551615"}),
            "--set seed=18446744073709551615: 18446744073709551615 is out of the range of an "
            "integer (-9223372036854775808 to 9223372036854775807)");
  EXPECT_THAT(resolve_error({"train.max_samples=-9223372036854775809"}),
              ::testing::HasSubstr("-9223372036854775809 is out of the range of an integer"));
  EXPECT_EQ(resolve_error({"seed=9223372036854775807"}), "");
}

TEST(ConfigErrors, MalformedSetFlags) {
  UserSettings settings;
  EXPECT_THROW(
      {
        try {
          settings.add_set("train.lr");
        } catch (const ConfigError& error) {
          EXPECT_STREQ(error.what(), "--set train.lr: expected KEY=VALUE, e.g. --set train.lr=0.1");
          throw;
        }
      },
      ConfigError);
  EXPECT_THROW(settings.add_set("train..lr=1"), ConfigError);
  EXPECT_THROW(settings.add_set("=1"), ConfigError);
}

}  // namespace
}  // namespace hetps::config
