#include "checkpoint/checkpoint_store.h"

#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/checkpoint_file.h"
#include "support/scratch_dir.h"

namespace hetps::checkpoint {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> names(const std::vector<std::filesystem::path>& files) {
  std::vector<std::string> out;
  for (const auto& file : files) out.push_back(file.filename().string());
  return out;
}

void flip_last_byte(const std::filesystem::path& file) {
  std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
  io.seekg(-1, std::ios::end);
  const char last = static_cast<char>(io.get());
  io.seekp(-1, std::ios::end);
  io.put(static_cast<char>(last ^ 0x01));
}

TEST(CheckpointStoreTest, KeepsTheNewestAndNumbersThemInOrder) {
  testing::ScratchDir scratch;
  CheckpointStore store(scratch / "checkpoints", 2);
  for (int i = 1; i <= 4; ++i) store.save({{"step", i}});
  EXPECT_THAT(names(store.files()), ElementsAre("checkpoint-3.ckpt", "checkpoint-4.ckpt"));
  const auto found = store.load_latest([](const std::string& refusal) { FAIL() << refusal; });
  EXPECT_EQ(4, found.state.at("step"));
}

TEST(CheckpointStoreTest, NumbersCountPastTheTenth) {
  testing::ScratchDir scratch;
  CheckpointStore store(scratch.path(), 3);
  for (int i = 1; i <= 11; ++i) store.save({{"step", i}});
  EXPECT_THAT(names(store.files()),
              ElementsAre("checkpoint-9.ckpt", "checkpoint-10.ckpt", "checkpoint-11.ckpt"));
}

TEST(CheckpointStoreTest, ABrokenNewestFallsBackToThePreviousAndSaysWhy) {
  testing::ScratchDir scratch;
  CheckpointStore store(scratch.path(), 2);
  store.save({{"step", 1}});
  const auto newest = store.save({{"step", 2}});
  flip_last_byte(newest);
  std::vector<std::string> refusals;
  const auto found = store.load_latest([&](const std::string& r) { refusals.push_back(r); });
  EXPECT_EQ(1, found.state.at("step"));
  ASSERT_EQ(1U, refusals.size());
  EXPECT_THAT(refusals[0], HasSubstr("checkpoint-2.ckpt: corrupt"));
}

TEST(CheckpointStoreTest, ATruncatedNewestFallsBackToo) {
  testing::ScratchDir scratch;
  CheckpointStore store(scratch.path(), 2);
  store.save({{"step", 1}});
  const auto newest = store.save({{"step", 2}});
  std::filesystem::resize_file(newest, std::filesystem::file_size(newest) / 2);
  const auto found = store.load_latest([](const std::string&) {});
  EXPECT_EQ(1, found.state.at("step"));
}

TEST(CheckpointStoreTest, NoReadableCheckpointIsAnErrorNamingEveryRefusal) {
  testing::ScratchDir scratch;
  CheckpointStore store(scratch.path(), 2);
  EXPECT_THAT([&] { store.load_latest([](const std::string&) {}); },
              ::testing::ThrowsMessage<CheckpointError>(HasSubstr("no checkpoint in")));
  flip_last_byte(store.save({{"step", 1}}));
  flip_last_byte(store.save({{"step", 2}}));
  // The oldest is not said to be skipped for an older one: there is none, and the error says it.
  std::vector<std::string> refusals;
  EXPECT_THAT([&] { store.load_latest([&](const std::string& r) { refusals.push_back(r); }); },
              ::testing::ThrowsMessage<CheckpointError>(
                  ::testing::AllOf(HasSubstr("reads back whole"), HasSubstr("checkpoint-1.ckpt"),
                                   HasSubstr("checkpoint-2.ckpt"))));
  ASSERT_EQ(refusals.size(), 1U);
  EXPECT_THAT(refusals[0], HasSubstr("checkpoint-2.ckpt"));
}

TEST(CheckpointStoreTest, AResumedRunSavesAfterTheNewestAndClearsOnlyUnfinishedWrites) {
  testing::ScratchDir scratch;
  CheckpointStore(scratch.path(), 5).save({{"step", 1}});
  std::ofstream(scratch / "checkpoint-2.ckpt.tmp-123") << "left by a killed run";
  std::ofstream(scratch / "notes.txt") << "a user's file";
  CheckpointStore resumed(scratch.path(), 5);
  EXPECT_EQ("checkpoint-2.ckpt", resumed.save({{"step", 2}}).filename().string());
  EXPECT_THAT(names(resumed.files()), ElementsAre("checkpoint-1.ckpt", "checkpoint-2.ckpt"));
  EXPECT_FALSE(std::filesystem::exists(scratch / "checkpoint-2.ckpt.tmp-123"));
  EXPECT_TRUE(std::filesystem::exists(scratch / "notes.txt"));
}

}  // namespace
}  // namespace hetps::checkpoint
