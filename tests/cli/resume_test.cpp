// Checkpoints and `hetps train --resume` from the command line (issue 9): a run stopped by
// SIGINT says how to go on and, resumed, writes the log the uninterrupted run writes; broken
// checkpoints and misuse of --resume are refused by name. scripts/kill-and-resume.sh (CTest
// KillAndResume) does the same with SIGKILL at random moments.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/hetps_process.h"

namespace hetps::cli {
namespace {

using ::testing::HasSubstr;
using testing::interrupt_after_checkpoints;
using ::testing::Not;
using testing::Outcome;
using testing::read_file;
using testing::run_hetps;
using testing::ScratchDir;

// A run of a few seconds with a checkpoint every 0.25 s of virtual time, on a small synthetic
// data set unless `data` names another.
std::vector<std::string> checkpointed_run(std::vector<std::string> args,
                                          const std::vector<std::string>& data = {
                                              "data.name=synthetic", "data.synthetic_train=2048",
                                              "data.synthetic_test=256"}) {
  std::vector<std::string> settings = data;
  settings.insert(settings.end(),
                  {"train.max_samples=60000", "train.eval_interval=0.5", "cluster.workers=4",
                   "cluster.speeds=[1,1,0.5,0.25]", "run.checkpoint_interval=0.25"});
  for (const std::string& set : settings) {
    args.push_back("--set");
    args.push_back(set);
  }
  return args;
}

class ResumeTest : public ::testing::Test {
 protected:
  // The same run, never interrupted.
  void SetUp() override {
    const Outcome reference = run_hetps(
        checkpointed_run({"train", "--quiet", "--out", (scratch_ / "reference").string()}));
    ASSERT_EQ(reference.exit_code, 0) << reference.output;
  }

  // The run stopped by SIGINT once it holds `checkpoints` checkpoints.
  std::filesystem::path interrupted_run(size_t checkpoints) {
    const auto run = scratch_ / "interrupted";
    const int status =
        interrupt_after_checkpoints(checkpointed_run({"train", "--quiet", "--out", run.string()}),
                                    run, checkpoints, scratch_ / "interrupted.out");
    EXPECT_EQ(status, 130) << read_file(scratch_ / "interrupted.out");
    return run;
  }

  std::string reference_log() const { return read_file(scratch_ / "reference" / "log.jsonl"); }

  ScratchDir scratch_;
};

TEST_F(ResumeTest, AnInterruptedRunSaysHowToGoOnAndResumesToTheSameLog) {
  const auto run = interrupted_run(1);
  EXPECT_THAT(read_file(scratch_ / "interrupted.out"), HasSubstr("hetps: stopped by SIGINT at "));
  EXPECT_THAT(
      read_file(scratch_ / "interrupted.out"),
      HasSubstr(" s of virtual time, with a checkpoint in " + (run / "checkpoints").string() +
                "; continue with: hetps train --resume " + run.string()));
  EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));
  EXPECT_NE(read_file(run / "log.jsonl"), reference_log());

  const Outcome resumed = run_hetps({"train", "--quiet", "--resume", run.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(read_file(run / "log.jsonl"), reference_log());
  EXPECT_EQ(read_file(run / "timeline.csv"), read_file(scratch_ / "reference" / "timeline.csv"));
}

TEST_F(ResumeTest, ABrokenNewestCheckpointIsNamedAndThePreviousOneUsed) {
  const auto run = interrupted_run(2);
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(run / "checkpoints")) {
    files.push_back(entry.path());
  }
  // checkpoint-<n>.ckpt, newest last
  const auto number = [](const std::filesystem::path& file) {
    return std::stoi(file.stem().string().substr(std::string("checkpoint-").size()));
  };
  std::ranges::sort(files, {}, number);
  ASSERT_GE(files.size(), 2U);
  std::filesystem::resize_file(files.back(), std::filesystem::file_size(files.back()) - 1);

  const Outcome resumed = run_hetps({"train", "--resume", run.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_THAT(resumed.output,
              HasSubstr("hetps: warning: checkpoint " + files.back().string() + ": truncated"));
  EXPECT_THAT(resumed.output,
              HasSubstr(": continues from " + files[files.size() - 2].string() + " at "));
  EXPECT_EQ(read_file(run / "log.jsonl"), reference_log());
}

TEST_F(ResumeTest, NoReadableCheckpointIsRefusedNamingEach) {
  const auto run = interrupted_run(1);
  for (const auto& entry : std::filesystem::directory_iterator(run / "checkpoints")) {
    std::ofstream(entry.path(), std::ios::binary | std::ios::trunc) << "HETPSCKP broken";
  }
  const Outcome resumed = run_hetps({"train", "--quiet", "--resume", run.string()});
  EXPECT_EQ(resumed.exit_code, 2) << resumed.output;
  EXPECT_THAT(resumed.output, HasSubstr("--resume " + run.string() + ": no checkpoint in "));
  EXPECT_THAT(resumed.output, HasSubstr("reads back whole"));
}

TEST_F(ResumeTest, ACheckpointOfAnotherConfigIsRefused) {
  const auto run = interrupted_run(1);
  // The user edits the run's config after the checkpoint: another budget.
  std::string config = read_file(run / "config.toml");
  const size_t budget = config.find("\nmax_samples = 60000\n");
  ASSERT_NE(budget, std::string::npos) << config;
  config.replace(budget, std::string("\nmax_samples = 60000\n").size(), "\nmax_samples = 70000\n");
  std::ofstream(run / "config.toml", std::ios::trunc) << config;
  const Outcome resumed = run_hetps({"train", "--quiet", "--resume", run.string()});
  EXPECT_EQ(resumed.exit_code, 2) << resumed.output;
  EXPECT_THAT(resumed.output, HasSubstr("was taken by a run with another config than"));
}

// A run directory is written by one process at a time: while a run goes on, another hetps
// neither resumes it (nor reads its checkpoints, which may be being written) nor replaces it
// with --force; once it stopped, it resumes.
TEST(Resume, ARunStillGoingIsNeitherResumedNorReplacedByAnotherProcess) {
  const ScratchDir scratch;
  const auto run = scratch / "going";
  const std::vector<std::string> endless = checkpointed_run(
      {"train", "--quiet", "--out", run.string(), "--set", "train.max_samples=1000000000"});
  Outcome resumed;
  Outcome forced;
  const int status = interrupt_after_checkpoints(endless, run, 1, scratch / "going.out", [&] {
    resumed = run_hetps({"train", "--resume", run.string()});
    std::vector<std::string> replacing = endless;
    replacing.insert(replacing.begin() + 1, "--force");
    forced = run_hetps(replacing);
  });
  ASSERT_EQ(status, 130) << read_file(scratch / "going.out");
  const std::string in_use =
      "hetps: " + run.string() + ": another hetps process is writing this directory";
  EXPECT_EQ(resumed.exit_code, 2) << resumed.output;
  EXPECT_THAT(resumed.output, HasSubstr(in_use));
  // Refused before it says where it would continue from.
  EXPECT_THAT(resumed.output, Not(HasSubstr("continues from")));
  EXPECT_EQ(forced.exit_code, 2) << forced.output;
  EXPECT_THAT(forced.output, HasSubstr(in_use));

  const size_t before = testing::checkpoints_in(run);
  EXPECT_EQ(interrupt_after_checkpoints({"train", "--quiet", "--resume", run.string()}, run,
                                        before + 1, scratch / "resumed.out"),
            130)
      << read_file(scratch / "resumed.out");
}

// A run depends on the files its config names (here cluster.trace), which config.toml does
// not hold: a resume after one changed is refused, and goes on once it is put back.
TEST(Resume, AChangedInputFileIsRefused) {
  const ScratchDir scratch;
  const auto trace = scratch / "trace.csv";
  const auto write_trace = [&](const char* speed) {
    std::ofstream(trace) << fmt::format("time,worker,speed\n0,0,{0}\n0,1,{0}\n", speed);
  };
  write_trace("1.0");
  const auto run = scratch / "traced";
  const int status =
      interrupt_after_checkpoints(checkpointed_run({"train", "--quiet", "--out", run.string(),
                                                    "--set", "cluster.trace=" + trace.string()}),
                                  run, 1, scratch / "traced.out");
  ASSERT_EQ(status, 130) << read_file(scratch / "traced.out");

  write_trace("0.1");
  const Outcome changed = run_hetps({"train", "--quiet", "--resume", run.string()});
  EXPECT_EQ(changed.exit_code, 2) << changed.output;
  EXPECT_THAT(changed.output, HasSubstr("was taken while cluster.trace (" + trace.string() +
                                        ") held other contents than it holds now"));
  // One that cannot be read is named for what it is.
  std::filesystem::remove(trace);
  std::filesystem::create_directory(trace);
  const Outcome directory = run_hetps({"train", "--quiet", "--resume", run.string()});
  EXPECT_EQ(directory.exit_code, 2) << directory.output;
  EXPECT_THAT(directory.output, HasSubstr("cluster.trace '" + trace.string() +
                                          "': a directory; expected a CSV file"));
  std::filesystem::remove(trace);
  write_trace("1.0");
  const Outcome restored = run_hetps({"train", "--quiet", "--resume", run.string()});
  EXPECT_EQ(restored.exit_code, 0) << restored.output;
}

// Writes an IDX file: a big-endian header (magic, then each dimension), then `values`.
void write_idx(const std::filesystem::path& file, uint32_t magic,
               const std::vector<uint32_t>& dimensions, const std::vector<uint8_t>& values) {
  std::ofstream out(file, std::ios::binary);
  const auto big_endian = [&](uint32_t word) {
    for (int shift = 24; shift >= 0; shift -= 8) out.put(static_cast<char>((word >> shift) & 0xff));
  };
  big_endian(magic);
  for (uint32_t dimension : dimensions) big_endian(dimension);
  out.write(reinterpret_cast<const char*>(values.data()),
            static_cast<std::streamsize>(values.size()));
}

constexpr uint32_t kTinyImages = 64;

// The labels of a tiny data set's `split` ("train" or "t10k"), counting up from `first`.
void write_tiny_labels(const std::filesystem::path& set, const char* split, uint8_t first) {
  std::vector<uint8_t> labels(kTinyImages);
  for (uint32_t i = 0; i < kTinyImages; ++i) labels[i] = static_cast<uint8_t>((first + i) % 10);
  write_idx(set / fmt::format("{}-labels-idx1-ubyte", split), 0x801, {kTinyImages}, labels);
}

// A tiny MNIST-shaped data set under `<dir>/mnist`: 64 images in each split.
void write_tiny_mnist(const std::filesystem::path& dir) {
  const std::filesystem::path set = dir / "mnist";
  std::filesystem::create_directories(set);
  std::vector<uint8_t> pixels(kTinyImages * 28 * 28);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>(i * 7);
  for (const char* split : {"train", "t10k"}) {
    write_idx(set / fmt::format("{}-images-idx3-ubyte", split), 0x803, {kTinyImages, 28, 28},
              pixels);
    write_tiny_labels(set, split, 0);
  }
}

// The data set's files are inputs too: a resume after one was replaced is refused.
TEST(Resume, AChangedDataFileIsRefused) {
  const ScratchDir scratch;
  write_tiny_mnist(scratch / "data");
  const auto run = scratch / "mnist-run";
  const std::vector<std::string> args =
      checkpointed_run({"train", "--quiet", "--out", run.string()},
                       {"data.name=mnist", "data.dir=" + (scratch / "data").string()});
  const int status = interrupt_after_checkpoints(args, run, 1, scratch / "mnist-run.out");
  ASSERT_EQ(status, 130) << read_file(scratch / "mnist-run.out");

  write_tiny_labels(scratch / "data" / "mnist", "train", 1);
  const Outcome changed = run_hetps({"train", "--quiet", "--resume", run.string()});
  EXPECT_EQ(changed.exit_code, 2) << changed.output;
  EXPECT_THAT(changed.output,
              HasSubstr("was taken while data file train-labels-idx1-ubyte (" +
                        (scratch / "data" / "mnist" / "train-labels-idx1-ubyte").string() +
                        ") held other contents than it holds now"));
  write_tiny_labels(scratch / "data" / "mnist", "train", 0);
  const Outcome restored = run_hetps({"train", "--quiet", "--resume", run.string()});
  EXPECT_EQ(restored.exit_code, 0) << restored.output;
}

// On threads real time does not repeat, so the resumed run is not the uninterrupted one bit for
// bit; it spends the budget exactly as that run does, and its log goes on from the checkpoint's
// time and version.
TEST(Resume, AThreadsRunStoppedBySigintResumesToItsBudget) {
  const ScratchDir scratch;
  const Outcome reference = run_hetps(checkpointed_run(
      {"train", "--quiet", "--out", (scratch / "reference").string(), "--set", "engine=threads"}));
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  const auto uninterrupted =
      nlohmann::json::parse(read_file(scratch / "reference" / "summary.json"));
  const auto run = scratch / "threads";
  const int status = interrupt_after_checkpoints(
      checkpointed_run({"train", "--quiet", "--out", run.string(), "--set", "engine=threads"}), run,
      1, scratch / "interrupted.out");
  ASSERT_EQ(status, 130) << read_file(scratch / "interrupted.out");
  const size_t lines_before = std::ranges::count(read_file(run / "log.jsonl"), '\n');

  const Outcome resumed = run_hetps({"train", "--quiet", "--resume", run.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  const auto summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(summary.at("engine"), "threads");
  EXPECT_EQ(summary.at("stop_reason"), "max_samples");
  // Whole BSP rounds: the budget's 60000 samples rounded up to a round, as the uninterrupted run.
  EXPECT_GE(summary.at("samples").get<int64_t>(), 60000);
  EXPECT_EQ(summary.at("samples"), uninterrupted.at("samples"));
  std::istringstream log(read_file(run / "log.jsonl"));
  double time = -1;
  int64_t version = -1;
  size_t lines = 0;
  for (std::string line; std::getline(log, line); ++lines) {
    const auto record = nlohmann::json::parse(line);
    if (record.at("type") != "eval") continue;
    EXPECT_GT(record.at("time").get<double>(), time) << line;
    EXPECT_GE(record.at("updates").get<int64_t>(), version) << line;
    time = record.at("time").get<double>();
    version = record.at("updates").get<int64_t>();
  }
  EXPECT_GT(lines, lines_before) << "the resumed run appends to the log";
}

// A run log cut short or gone since the checkpoint is a damaged run directory: bad input, named.
TEST(Resume, ADamagedRunLogIsRefusedByName) {
  const ScratchDir scratch;
  const auto run = scratch / "damaged";
  ASSERT_EQ(
      interrupt_after_checkpoints(checkpointed_run({"train", "--quiet", "--out", run.string()}),
                                  run, 1, scratch / "damaged.out"),
      130)
      << read_file(scratch / "damaged.out");
  const auto log = run / "log.jsonl";
  std::filesystem::resize_file(log, 10);
  const Outcome cut = run_hetps({"train", "--quiet", "--resume", run.string()});
  EXPECT_EQ(cut.exit_code, 2) << cut.output;
  EXPECT_THAT(cut.output, HasSubstr("hetps: cannot resume the run log " + log.string() +
                                    ": it should hold at least the "));
  EXPECT_THAT(cut.output, HasSubstr("bytes written before the checkpoint, but it holds only 10\n"));
  std::filesystem::remove(log);
  const Outcome gone = run_hetps({"train", "--quiet", "--resume", run.string()});
  EXPECT_EQ(gone.exit_code, 2) << gone.output;
  EXPECT_THAT(gone.output, HasSubstr("bytes written before the checkpoint, but it is missing\n"));
}

TEST(Resume, MisuseIsRefusedByName) {
  const ScratchDir scratch;
  const Outcome with_set =
      run_hetps({"train", "--resume", scratch.path().string(), "--set", "train.lr=0.1"});
  EXPECT_EQ(with_set.exit_code, 2);
  EXPECT_THAT(with_set.output, HasSubstr("it takes no --config, --set, --out or --force"));

  const Outcome not_a_run = run_hetps({"train", "--resume", scratch.path().string()});
  EXPECT_EQ(not_a_run.exit_code, 2);
  EXPECT_THAT(not_a_run.output, HasSubstr("not a run directory (it holds no config.toml)"));
  EXPECT_THAT(not_a_run.output, Not(HasSubstr("it is a comparison")));

  const auto comparison = scratch / "comparison";
  std::filesystem::create_directories(comparison);
  std::ofstream(comparison / "compare.json") << "{}";
  const Outcome on_comparison = run_hetps({"train", "--resume", comparison.string()});
  EXPECT_EQ(on_comparison.exit_code, 2);
  EXPECT_THAT(on_comparison.output,
              HasSubstr("it is a comparison: hetps compare --resume " + comparison.string()));

  const Outcome missing = run_hetps({"train", "--resume", (scratch / "missing").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.output, HasSubstr("missing: no such directory"));

  const auto finished = scratch / "finished";
  ASSERT_EQ(
      run_hetps(testing::tiny_run({"train", "--quiet", "--out", finished.string()})).exit_code, 0);
  const Outcome done = run_hetps({"train", "--resume", finished.string()});
  EXPECT_EQ(done.exit_code, 2);
  EXPECT_THAT(done.output, HasSubstr("the run has finished (it holds summary.json)"));
}

}  // namespace
}  // namespace hetps::cli
