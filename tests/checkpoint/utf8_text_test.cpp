// State from a file or another rank is refused at once when its text is not UTF-8, wherever the
// text hides, and its byte strings are left alone.
#include "checkpoint/utf8_text.h"

#include <string>

#include <gtest/gtest.h>

namespace hetps::checkpoint {
namespace {

const std::string kNotUtf8 = "gg\xff";

TEST(Utf8TextTest, StateWhoseTextIsUtf8Passes) {
  const nlohmann::json state = {{"name", "worker 3 — ü"},
                                {"floats", nlohmann::json::binary({0xff, 0xfe, 0x00})},
                                {"list", {1, "two", {{"three", 3.0}}}}};
  EXPECT_NO_THROW(check_text_is_utf8(state));
}

TEST(Utf8TextTest, TextThatIsNotUtf8IsFoundAsAValueOrAKeyAtAnyDepth) {
  EXPECT_THROW(check_text_is_utf8(kNotUtf8), nlohmann::json::type_error);
  EXPECT_THROW(check_text_is_utf8({{kNotUtf8, 1}}), nlohmann::json::type_error);
  EXPECT_THROW(check_text_is_utf8({{"a", {1, {{"b", {2, kNotUtf8}}}}}}),
               nlohmann::json::type_error);
  EXPECT_THROW(check_text_is_utf8({{"a", {{"b", {{kNotUtf8, nullptr}}}}}}),
               nlohmann::json::type_error);
}

}  // namespace
}  // namespace hetps::checkpoint
