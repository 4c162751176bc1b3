// A data set of the user's own (`data.name = "idx"`): IDX files straight under data.dir, with
// their own classes, channels and image size, trained end to end.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/hetps_process.h"
#include "data/idx.h"

namespace hetps::cli {
namespace {

using ::testing::HasSubstr;
using testing::Outcome;
using testing::read_file;
using testing::run_hetps;
using testing::ScratchDir;

// `count` colour images of 12×12 in 3 classes: class k lights channel k, dimly where the
// others are dark, so any model can tell them apart.
data::LabelledImages lit_channels(int count) {
  constexpr int kChannels = 3;
  constexpr int kSide = 12;
  data::LabelledImages set{{count, kSide, kSide, {}, kChannels}, {}};
  for (int i = 0; i < count; ++i) {
    const int label = i % kChannels;
    set.labels.push_back(static_cast<uint8_t>(label));
    for (int channel = 0; channel < kChannels; ++channel) {
      const uint8_t level = channel == label ? 200 : static_cast<uint8_t>((i * 7) % 40);
      set.images.pixels.insert(set.images.pixels.end(), kSide * kSide, level);
    }
  }
  return set;
}

TEST(OwnData, ColourIdxFilesOfItsOwnTrainAModel) {
  const ScratchDir scratch;
  const std::filesystem::path data = scratch / "my-data";
  std::filesystem::create_directories(data);
  data::write_idx_split(data, {lit_channels(240), lit_channels(60)});
  const std::filesystem::path run = scratch / "run";

  const Outcome trained = run_hetps({"train", "--quiet", "--out", run.string(), "--set",
                                     "data.name=idx", "--set", "data.dir=" + data.string(), "--set",
                                     "data.classes=3", "--set", "model.name=lenet", "--set",
                                     "cluster.workers=2", "--set", "train.max_samples=2400"});
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const nlohmann::json summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_GT(summary.at("final_accuracy").get<double>(), 0.9) << summary.dump();
  EXPECT_THAT(read_file(run / "config.toml"), HasSubstr("classes = 3"));
}

TEST(OwnData, AClassCountThatTheLabelsExceedIsNamed) {
  const ScratchDir scratch;
  data::write_idx_split(scratch.path(), {lit_channels(30), lit_channels(6)});
  const Outcome refused =
      run_hetps({"train", "--quiet", "--out", (scratch / "run").string(), "--set", "data.name=idx",
                 "--set", "data.dir=" + scratch.path().string(), "--set", "data.classes=2"});
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr((scratch.path() / data::kTrainLabelsFile).string() +
                                        ": label 2 at index 2 is out of range, expected 0..1"));
}

}  // namespace
}  // namespace hetps::cli
