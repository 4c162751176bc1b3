#include "cli/number_flags.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hetps::cli {
namespace {

// Parses `value` as the flag --n of a command whose --n is a whole number from 1 to 1000.
int parsed(const std::string& value) {
  CLI::App app;
  int n = 0;
  app.add_option("--n", n)->transform(number_within(1, 1000, /*whole=*/true));
  std::vector<std::string> args = {value, "--n"};  // CLI11 parses them from the back
  app.parse(args);
  return n;
}

std::string refusal(const std::string& value) {
  try {
    parsed(value);
  } catch (const CLI::ParseError& error) {
    return error.what();
  }
  return "accepted";
}

// The integer handed on is the number checked, in any notation strtod reads.
TEST(NumberFlags, AWholeNumberIsReadAsTheNumberItWrites) {
  EXPECT_EQ(parsed("10"), 10);
  EXPECT_EQ(parsed("010"), 10) << "not octal";
  EXPECT_EQ(parsed("1e3"), 1000);
  EXPECT_EQ(parsed("7.0"), 7);
}

TEST(NumberFlags, WhatIsNotAWholeNumberInRangeIsRefusedSayingWhatWasExpected) {
  const std::string expected = "--n: expected a whole number from 1 to 1000, got ";
  EXPECT_EQ(refusal("2.5"), expected + "\"2.5\"");
  EXPECT_EQ(refusal("two"), expected + "\"two\"");
  EXPECT_EQ(refusal("0"), expected + "\"0\"");
  EXPECT_EQ(refusal("1001"), expected + "\"1001\"");
  EXPECT_EQ(refusal("nan"), expected + "\"nan\"");
  EXPECT_EQ(refusal("inf"), expected + "\"inf\"");
  EXPECT_EQ(refusal("5 "), expected + "\"5 \"");
}

}  // namespace
}  // namespace hetps::cli
