// Whole numbers come back from a saved state as they were written; a float, a value out of the
// type's range or another type is refused with what was expected, never converted.
#include "checkpoint/saved_integers.h"

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "checkpoint/checkpoint_error.h"

namespace hetps::checkpoint {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(SavedIntegersTest, IntegersComeBackAsTheyWereWritten) {
  EXPECT_EQ(integer<int>(nlohmann::json(-7)), -7);
  EXPECT_EQ(integer<int64_t>(nlohmann::json(std::numeric_limits<int64_t>::min())),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(integer<uint64_t>(nlohmann::json(std::numeric_limits<uint64_t>::max())),
            std::numeric_limits<uint64_t>::max());
  EXPECT_THAT(integers<std::vector<int>>(nlohmann::json{3, 1, 2}), ElementsAre(3, 1, 2));
  EXPECT_THAT(integers<std::set<int>>(nlohmann::json{3, 1, 3}), ElementsAre(1, 3));
  const std::map<int, int> contributions{{0, 2}, {5, 1}};
  EXPECT_EQ((integer_map<int, int>(nlohmann::json(contributions))), contributions);
  const std::vector<std::vector<int>> gathering{{}, {1, 2}};
  EXPECT_EQ(integers<std::vector<std::vector<int>>>(nlohmann::json(gathering)), gathering);
  const std::map<int, std::vector<double>> features{{3, {0.5, 2.0}}};
  EXPECT_EQ((integer_map<int, std::vector<double>>(nlohmann::json(features))), features);
  EXPECT_EQ(integer_or<int64_t>(nlohmann::json{{"rounds", 7}}, "rounds", 0), 7);
  EXPECT_EQ(integer_or<int64_t>(nlohmann::json::object(), "rounds", 0), 0);
}

TEST(SavedIntegersTest, AFloatIsRefusedAndNotConverted) {
  // 1.7e22 as an int is undefined behaviour in nlohmann's get<int>() (found by
  // fuzz/checkpoint.cpp); 2.0 is refused too: hetps writes no integer as a float.
  EXPECT_THAT([] { integer<int>(nlohmann::json(1.73703e22)); },
              ThrowsMessage<CheckpointError>(HasSubstr(
                  "expected an integer from -2147483648 to 2147483647, got 1.73703e+22")));
  EXPECT_THROW(integer<int>(nlohmann::json(2.0)), CheckpointError);
  EXPECT_THROW(integers<std::vector<int64_t>>(nlohmann::json{1, 2.5}), CheckpointError);
}

TEST(SavedIntegersTest, ValuesOutsideTheTypeAndOtherTypesAreRefused) {
  EXPECT_THROW(integer<int>(nlohmann::json(int64_t{1} << 40)), CheckpointError);
  EXPECT_THROW(integer<uint64_t>(nlohmann::json(-1)), CheckpointError);
  EXPECT_THROW(integer<int64_t>(nlohmann::json(std::numeric_limits<uint64_t>::max())),
               CheckpointError);
  EXPECT_THAT([] { integer<int>(nlohmann::json("3")); },
              ThrowsMessage<CheckpointError>(HasSubstr("got string")));
  EXPECT_THAT([] { integer<int>(nlohmann::json::object()); },
              ThrowsMessage<CheckpointError>(HasSubstr("got object")));
  EXPECT_THAT([] { integers<std::vector<int>>(nlohmann::json(4)); },
              ThrowsMessage<CheckpointError>(HasSubstr("expected an array, got number")));
  // A byte string where a number belongs is named by its type, never written out.
  EXPECT_THAT(
      [] {
        integer<int>(nlohmann::json::binary({1, 2, 3}));
      },
      ThrowsMessage<CheckpointError>(HasSubstr("got binary")));
  EXPECT_THROW((integer_map<int, int>(nlohmann::json{{1, 2, 3}})), CheckpointError);
  EXPECT_THROW(integers<std::vector<std::vector<int>>>(nlohmann::json{{1, 1e30}}), CheckpointError);
  EXPECT_THROW(integer_or<int>(nlohmann::json{{"rounds", 0.5}}, "rounds", 0), CheckpointError);
}

}  // namespace
}  // namespace hetps::checkpoint
