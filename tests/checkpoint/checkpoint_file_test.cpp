#include "checkpoint/checkpoint_file.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/state_blob.h"
#include "support/scratch_dir.h"

namespace hetps::checkpoint {
namespace {

using ::testing::HasSubstr;

nlohmann::json sample_state() {
  return {{"time", 12.5},
          {"version", 40},
          {"model", floats_blob(std::vector<float>{0.25F, -1.0F, 3.0F})},
          {"protocol", {{"phase", "bsp"}, {"clocks", {1, 2, 3}}}}};
}

std::string refusal_of(std::string_view bytes) {
  try {
    decode_checkpoint(bytes, "ckpt-7");
  } catch (const CheckpointError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(CheckpointFileTest, TheStateComesBackAsItWasWritten) {
  const nlohmann::json state = sample_state();
  EXPECT_EQ(state, decode_checkpoint(encode_checkpoint(state), "ckpt"));
}

TEST(CheckpointFileTest, EveryFlippedByteIsRefused) {
  const std::string good = encode_checkpoint(sample_state());
  for (size_t at = 0; at < good.size(); ++at) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    EXPECT_THAT(refusal_of(bad), HasSubstr("checkpoint ckpt-7: ")) << "flipped byte " << at;
  }
}

TEST(CheckpointFileTest, EveryTruncationIsRefusedAsTruncated) {
  const std::string good = encode_checkpoint(sample_state());
  for (size_t length = 0; length < good.size(); ++length) {
    EXPECT_THAT(refusal_of(std::string_view(good).substr(0, length)), HasSubstr("truncated"))
        << "cut at " << length;
  }
}

TEST(CheckpointFileTest, RefusalsSayWhatIsWrong) {
  const std::string good = encode_checkpoint(sample_state());
  std::string flipped = good;
  flipped.back() = static_cast<char>(flipped.back() ^ 1);
  EXPECT_EQ(refusal_of(flipped),
            "checkpoint ckpt-7: corrupt: the state's checksum does not match its header");
  std::string other_version = good;
  other_version[8] = 9;
  EXPECT_EQ(refusal_of(other_version),
            "checkpoint ckpt-7: format version 9, but this hetps reads version 1");
  EXPECT_THAT(refusal_of("HETPS is not a checkpoint, just some text"),
              HasSubstr("not a hetps checkpoint"));
  EXPECT_THAT(refusal_of(good + "x"), HasSubstr("trailing bytes"));
  // CBOR may carry any bytes as text; a checksum over them does not make them text.
  EXPECT_THAT(refusal_of(encode_checkpoint({{"engine", "threads\xff"}})),
              HasSubstr("checkpoint ckpt-7: its state is not valid: text that is not UTF-8"));
}

TEST(CheckpointFileTest, WritesLeaveOnlyTheCheckpointAndReadBack) {
  testing::ScratchDir scratch;
  const auto file = scratch.path() / "sub" / "checkpoint-1.ckpt";
  write_checkpoint(file, sample_state());
  EXPECT_EQ(sample_state(), read_checkpoint(file));
  int entries = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator(file.parent_path())) {
    ++entries;
  }
  EXPECT_EQ(1, entries);
}

TEST(CheckpointFileTest, AMissingFileIsNamed) {
  EXPECT_THAT(
      [] { read_checkpoint("/nonexistent/checkpoint-3.ckpt"); },
      ::testing::ThrowsMessage<CheckpointError>(HasSubstr("/nonexistent/checkpoint-3.ckpt")));
}

TEST(CheckpointFileTest, ADirectoryIsNamedAsOne) {
  const hetps::testing::ScratchDir scratch;
  const std::filesystem::path directory = scratch / "checkpoint-9.ckpt";
  std::filesystem::create_directory(directory);
  EXPECT_THAT(
      [&] { read_checkpoint(directory); },
      ::testing::ThrowsMessage<CheckpointError>(HasSubstr(
          "checkpoint " + directory.string() + ": a directory; expected a checkpoint file")));
}

}  // namespace
}  // namespace hetps::checkpoint
