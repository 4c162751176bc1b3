// A run's checkpoint resumes only the run that took it, judged by its config as this hetps
// reads it: a checkpoint taken before a key was added to hetps still resumes its run.
#include "cli/run_checkpoints.h"

#include <gtest/gtest.h>

#include <string>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/checkpoint_store.h"
#include "config/resolve.h"
#include "config/settings.h"
#include "config/toml_writer.h"
#include "support/scratch_dir.h"

namespace hetps::cli {
namespace {

config::Config synthetic_run() {
  config::UserSettings settings;
  settings.add_set("data.name=synthetic");
  settings.add_set("train.max_samples=4096");
  return config::resolve(settings);
}

// A checkpoint at 0.5 s whose config is `config_text`.
void save_checkpoint(const std::filesystem::path& run_dir, const std::string& config_text) {
  checkpoint::CheckpointStore(run_dir / "checkpoints", 2)
      .save({{"config", config_text},
             {"time", 0.5},
             {"log_bytes", 0},
             {"engine", nlohmann::json::object()}});
}

void ignore(const std::string&) {}

TEST(RunCheckpoints, ACheckpointFromBeforeAKeyExistedResumesItsRun) {
  const hetps::testing::ScratchDir run_dir;
  const config::Config config = synthetic_run();
  std::string before_data_classes = config::to_toml_text(config);
  const std::string line = "classes = 10\n";
  const size_t at = before_data_classes.find(line);
  ASSERT_NE(at, std::string::npos) << before_data_classes;
  before_data_classes.erase(at, line.size());
  save_checkpoint(run_dir.path(), before_data_classes);

  EXPECT_EQ(load_resume_point(run_dir.path(), config, ignore).time, 0.5);
}

TEST(RunCheckpoints, ACheckpointOfAnotherConfigIsRefused) {
  const hetps::testing::ScratchDir run_dir;
  const config::Config config = synthetic_run();
  config::Config other = config;
  other.train.lr *= 2;
  save_checkpoint(run_dir.path(), config::to_toml_text(other));

  EXPECT_THROW(load_resume_point(run_dir.path(), config, ignore), checkpoint::CheckpointError);
  save_checkpoint(run_dir.path(), "[train]\nlr = \"fast\"\n");
  try {
    load_resume_point(run_dir.path(), config, ignore);
    ADD_FAILURE() << "a config this hetps cannot read was taken";
  } catch (const checkpoint::CheckpointError& error) {
    EXPECT_NE(std::string(error.what()).find("train.lr must be"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace hetps::cli
