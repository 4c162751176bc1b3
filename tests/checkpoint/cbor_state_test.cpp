// State from a file or another rank comes back as it was written, and is refused, not crashed
// on, when it nests deeper than any state does or its text is not UTF-8.
#include "checkpoint/cbor_state.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace hetps::checkpoint {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

nlohmann::json parse(const nlohmann::json& state) {
  return parse_cbor_state(nlohmann::json::to_cbor(state));
}

// `depth` arrays, each holding the next; the innermost holds a 1.
nlohmann::json nested(int depth) {
  nlohmann::json value = 1;
  for (int level = 0; level < depth; ++level) value = nlohmann::json::array({value});
  return value;
}

TEST(CborStateTest, AStateComesBackAsItWasWritten) {
  const nlohmann::json state = {{"name", "worker 3 — ü"},
                                {"floats", nlohmann::json::binary({0xff, 0xfe, 0x00})},
                                {"loss", 1.5e300},
                                {"list", {1, -2, "two", nullptr, true, {{"three", 3.0}}}},
                                {"deep", nested(kMaxStateDepth - 1)}};
  EXPECT_EQ(parse(state), state);
}

TEST(CborStateTest, NestingDeeperThanTheLimitIsRefusedWithoutDescendingIntoIt) {
  EXPECT_EQ(parse(nested(kMaxStateDepth)), nested(kMaxStateDepth));
  EXPECT_THAT([] { parse(nested(kMaxStateDepth + 1)); },
              ThrowsMessage<std::invalid_argument>(HasSubstr("nested deeper than 64 levels")));
  // A hundred thousand levels announced in as many bytes (0x81: an array of one) would overflow
  // the stack of a reader that descends into each.
  const std::vector<std::uint8_t> hostile(100'000, 0x81);
  EXPECT_THROW(parse_cbor_state(hostile), std::invalid_argument);
  EXPECT_THROW(parse(nlohmann::json{{"a", {{"b", nested(kMaxStateDepth)}}}}),
               std::invalid_argument);
}

TEST(CborStateTest, TextThatIsNotUtf8IsRefusedAsAValueOrAKeyAtAnyDepth) {
  const std::string not_utf8 = "gg\xff";
  for (const nlohmann::json& state : {nlohmann::json(not_utf8), nlohmann::json{{not_utf8, 1}},
                                      nlohmann::json{{"a", {1, {{"b", {2, not_utf8}}}}}}}) {
    EXPECT_THAT([&] { parse(state); },
                ThrowsMessage<std::invalid_argument>(HasSubstr("text that is not UTF-8")));
  }
}

TEST(CborStateTest, BytesThatAreNotOneCborValueFailAsFromCborDoes) {
  std::vector<std::uint8_t> truncated = nlohmann::json::to_cbor({{"pushes", 12}});
  truncated.pop_back();
  EXPECT_THROW(parse_cbor_state(truncated), nlohmann::json::parse_error);
  std::vector<std::uint8_t> trailing = nlohmann::json::to_cbor({{"pushes", 12}});
  trailing.push_back(0);
  EXPECT_THROW(parse_cbor_state(trailing), nlohmann::json::parse_error);
}

}  // namespace
}  // namespace hetps::checkpoint
