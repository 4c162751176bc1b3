#include "cli/run_job.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checkpoint/checkpoint_error.h"
#include "cli/directory_lock.h"
#include "cli/input_files.h"
#include "cli/run_files.h"
#include "cli/shard_crashes.h"
#include "cli/usage_error.h"
#include "config/error.h"
#include "data/load.h"
#include "data/partition.h"
#include "engine/worker_factory.h"
#include "model/blas_kernel.h"
#include "model/learner.h"
#include "model/model_source.h"

namespace hetps::cli {
namespace {

// Sends the run log to the file and the progress display alike.
class BothListeners : public engine::RunListener {
 public:
  BothListeners(engine::RunListener& first, engine::RunListener& second)
      : first_(first), second_(second) {}
  void on_eval(const metrics::EvalRecord& record) override {
    first_.on_eval(record);
    second_.on_eval(record);
  }
  void on_event(const nlohmann::json& record) override {
    first_.on_event(record);
    second_.on_event(record);
  }
  void on_timeline(const metrics::ActivityTimeline& timeline) override {
    first_.on_timeline(timeline);
    second_.on_timeline(timeline);
  }

 private:
  engine::RunListener& first_;
  engine::RunListener& second_;
};

}  // namespace

void check_names(const config::Config& config, const config::UserSettings* settings) {
  const auto check = [&](std::string_view key, const auto& names, const std::string& name) {
    if (std::find(names.begin(), names.end(), name) != names.end()) return;
    std::string message =
        fmt::format("{} must be one of: {}, got \"{}\"", key, fmt::join(names, ", "), name);
    if (const std::optional<std::string> where =
            settings ? settings->where_set(key) : std::nullopt) {
      message = fmt::format("{}: {}", *where, message);
    }
    throw config::ConfigError(message);
  };
  check("model.name", model::model_names(), config.model.name);
  check("data.name", data::kDatasetNames, config.data.name);
}

metrics::Summary train_job(const config::Config& config, engine::RunListener& listener,
                           const engine::RunCheckpoints& checkpoints) {
  try {
    const data::DataSplit data = data::load_data(config.data, config.seed);
    if (engine::is_primary_process(config)) {
      for (const auto& warning :
           {data::raised_classes_warning(data.train.classes, config.cluster.workers,
                                         config.data.partition, config.data.classes_per_worker),
            engine::short_shares_warning(*engine::make_partition(config, data.train),
                                         config.data.batch_size)}) {
        if (warning) fmt::print(stderr, "hetps: warning: {}\n", *warning);
      }
    }
    metrics::Summary summary =
        engine::run(config, data, model::model_source(config, data.train), listener, checkpoints);
    summary.blas_kernel = model::blas_kernel();
    return summary;
  } catch (const data::DataError& error) {
    // The data set's files and `cluster.trace` are files the user named: a missing or corrupt
    // one is bad input, like a bad setting.
    throw UsageError(error.what());
  }
}

void refuse_checkpoint_interval(const config::Config& config) {
  if (config.run.checkpoint_interval > 0) {
    throw UsageError(
        "run.checkpoint_interval: this run takes no checkpoints (only `hetps train` and `hetps "
        "compare` do); leave it at 0");
  }
}

metrics::Summary run_job(const config::Config& config, const std::filesystem::path& dir,
                         engine::RunListener& progress, const std::atomic<bool>& stop) {
  refuse_checkpoint_interval(config);
  std::filesystem::create_directories(dir);
  write_config(dir, config);
  RunLog log(dir);
  BothListeners listeners(log, progress);
  // The engine watches `stop` only where it hands out checkpoints: this run keeps none.
  engine::RunCheckpoints stoppable;
  stoppable.save = [](const nlohmann::json&, double) {};
  stoppable.stop = &stop;
  try {
    const metrics::Summary summary = train_job(config, listeners, stoppable);
    write_summary(dir, summary);
    return summary;
  } catch (const engine::ShardCrashed& crash) {
    throw run_ended_by(crash, config, dir, /*continue_with=*/std::nullopt, std::nullopt);
  }
}

namespace {

// Where a run's checkpoints go: `directory()` at each, and `saved` (if any) told of each file
// once written, returning where it is then (a staged directory is committed after its first
// checkpoint is whole in it, so that a run killed as it commits has a checkpoint to resume
// from, and the file moves with it).
struct CheckpointPlace {
  std::function<std::filesystem::path()> directory;
  std::function<std::filesystem::path(const std::filesystem::path&)> saved;
};

// Trains `config` with its log in `log` and `checkpoints` (but its `save`), writing each
// checkpoint to `place` and keeping in `last` the newest checkpoint written (for the message a
// shard crash ends with).
metrics::Summary train_with_checkpoints(const config::Config& config, RunLog& log,
                                        engine::RunListener& progress,
                                        engine::RunCheckpoints checkpoints,
                                        std::optional<SavedCheckpoint>& last,
                                        const CheckpointPlace& place) {
  BothListeners listeners(log, progress);
  // Once, as the run starts reading them (a resume found them unchanged already).
  const nlohmann::json inputs = input_file_digests(config);
  checkpoints.save = [&](const nlohmann::json& state, double time) {
    std::filesystem::path file =
        save_run_checkpoint(place.directory(), config, inputs, log.bytes(), time, state);
    if (place.saved) file = place.saved(file);
    last = {file, time};
  };
  return train_job(config, listeners, checkpoints);
}

// Commits `dir`, which a failed run wrote, and says where its log now is (or why it is not).
std::string keep_failed_run(StagedDirectory& dir) {
  try {
    dir.commit();
    return fmt::format("what the run logged up to then is kept in {}",
                       (dir.target() / "log.jsonl").string());
  } catch (const std::exception& error) {
    return fmt::format("what the run logged could not be kept: {}", error.what());
  }
}

}  // namespace

metrics::Summary keeping_a_failed_run(StagedDirectory& dir,
                                      const std::function<metrics::Summary()>& run) {
  try {
    return run();
  } catch (const engine::StallError& stall) {
    throw engine::StallError(fmt::format("{}; {}", stall.what(), keep_failed_run(dir)));
  } catch (const engine::ShardCrashed& crash) {
    if (dir.committed()) throw;  // at a checkpoint, which its message names
    throw engine::ShardCrashed(crash.shard(), crash.time(),
                               fmt::format("{}; {}", crash.what(), keep_failed_run(dir)));
  }
}

metrics::Summary run_checkpointed_job(const config::Config& config, StagedDirectory& dir,
                                      const std::string& continue_with,
                                      engine::RunListener& progress,
                                      const std::atomic<bool>& stop) {
  write_config(dir.path(), config);
  RunLog log(dir.path());
  engine::RunCheckpoints checkpoints;
  checkpoints.stop = &stop;
  std::optional<SavedCheckpoint> last;
  return keeping_a_failed_run(dir, [&] {
    try {
      const metrics::Summary summary =
          train_with_checkpoints(config, log, progress, checkpoints, last,
                                 {[&] { return dir.path(); },
                                  [&](const std::filesystem::path& file) {
                                    if (dir.committed()) return file;
                                    const std::filesystem::path staged = dir.path();
                                    dir.commit();
                                    log.moved_to(dir.path());
                                    return dir.path() / file.lexically_relative(staged);
                                  }});
      write_summary(dir.path(), summary);
      dir.commit();
      return summary;
    } catch (const engine::ShardCrashed& crash) {
      throw run_ended_by(crash, config, dir.target(), continue_with, last);
    }
  });
}

ResumePoint checkpoint_to_resume(const config::Config& config, const std::filesystem::path& dir) {
  try {
    return load_resume_point(dir, config, warn_skipped_checkpoint);
  } catch (const checkpoint::CheckpointError& error) {
    throw UsageError(fmt::format("--resume {}: {}", dir.string(), error.what()));
  }
}

metrics::Summary resume_job(const config::Config& config, const std::filesystem::path& dir,
                            const ResumePoint& point, const std::string& continue_with,
                            engine::RunListener& progress, const std::atomic<bool>& stop) {
  const DirectoryLock lock(dir);  // before the log is cut back to the checkpoint
  engine::RunCheckpoints checkpoints;
  try {
    checkpoints.crashed_shards = crashed_shards(dir, config);
  } catch (const checkpoint::CheckpointError& error) {
    throw UsageError(fmt::format("--resume {}: {}", dir.string(), error.what()));
  }
  RunLog log(dir, point.log_bytes);
  checkpoints.stop = &stop;
  checkpoints.resume_from = &point.engine_state;
  std::optional<SavedCheckpoint> last = SavedCheckpoint{point.file, point.time};
  try {
    const metrics::Summary summary =
        train_with_checkpoints(config, log, progress, checkpoints, last,
                               {.directory = [&dir] { return dir; }, .saved = {}});
    write_summary(dir, summary);
    return summary;
  } catch (const checkpoint::CheckpointError& error) {  // its state does not fit the run
    throw UsageError(fmt::format("--resume {}: checkpoint {}: {}", dir.string(),
                                 point.file.string(), error.what()));
  } catch (const engine::ShardCrashed& crash) {
    throw run_ended_by(crash, config, dir, continue_with, last);
  }
}

}  // namespace hetps::cli
