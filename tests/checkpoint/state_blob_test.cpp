#include "checkpoint/state_blob.h"

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "checkpoint/checkpoint_error.h"

namespace hetps::checkpoint {
namespace {

TEST(StateBlobTest, FloatsComeBackBitForBitThroughCbor) {
  const std::vector<float> values = {1.5F, -0.0F, 3.4e38F, 1e-45F};
  const nlohmann::json state = {{"model", floats_blob(values)}};
  const nlohmann::json back = nlohmann::json::from_cbor(nlohmann::json::to_cbor(state));
  std::vector<float> out(values.size());
  read_floats(back.at("model"), out, "the model");
  EXPECT_EQ(0, std::memcmp(values.data(), out.data(), sizeof(float) * values.size()));
  EXPECT_EQ(floats_from_blob(back.at("model"), "the model").size(), values.size());
}

TEST(StateBlobTest, DoublesComeBackBitForBit) {
  const std::vector<double> values = {0.1, -2.5e300, 4.9e-324};
  const nlohmann::json back = nlohmann::json::from_cbor(
      nlohmann::json::to_cbor(nlohmann::json{{"d", doubles_blob(values)}}));
  EXPECT_EQ(values, doubles_from_blob(back.at("d"), "the timeline"));
  EXPECT_THROW(doubles_from_blob(floats_blob(std::vector<float>{1.0F}), "x"), CheckpointError);
}

TEST(StateBlobTest, ABlobOfAnotherSizeIsRefusedByName) {
  const nlohmann::json blob = floats_blob(std::vector<float>{1, 2, 3});
  std::vector<float> out(4);
  try {
    read_floats(blob, out, "worker 2's local model");
    FAIL() << "a blob of 3 floats filled 4";
  } catch (const CheckpointError& error) {
    EXPECT_STREQ("worker 2's local model: holds 3 floats, expected 4", error.what());
  }
}

TEST(StateBlobTest, SomethingOtherThanBytesOrPartialFloatsIsRefused) {
  std::vector<float> out(1);
  EXPECT_THROW(read_floats(nlohmann::json::array({1.0}), out, "x"), CheckpointError);
  const nlohmann::json odd = nlohmann::json::binary({1, 2, 3});
  EXPECT_THROW(floats_from_blob(odd, "x"), CheckpointError);
}

}  // namespace
}  // namespace hetps::checkpoint
