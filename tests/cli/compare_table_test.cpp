// The table `hetps compare` prints: what each row says of its seeds.
#include "cli/compare_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace hetps::cli {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

CompletedRun run(const std::string& name, std::optional<double> time_to_target,
                 double final_accuracy = 0.85) {
  CompletedRun completed{name, name, {}};
  completed.summary.protocol = name;
  completed.summary.final_accuracy = final_accuracy;
  completed.summary.best_accuracy = final_accuracy;
  completed.summary.time_to_target = time_to_target;
  return completed;
}

// The table's line for `run_name`, or "" when it has none.
std::string row_of(const std::string& table, const std::string& run_name) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(run_name + " ")) return line;
  }
  return "";
}

TEST(CompareTable, TimesAreMeansOverTheSeedsThatReachedTheTargetToTheHundredth) {
  const std::string table = format_compare_table({
      run("bsp", 10.25, 0.8612),
      run("bsp", 12.75, 0.8588),
      run("asp", 5.5),
      run("asp", 6.0),
      run("ssp", 7.25),
      run("ssp", std::nullopt),
  });
  // Sample standard deviations: 2.5 / sqrt(2) and 0.5 / sqrt(2).
  EXPECT_THAT(row_of(table, "bsp"), HasSubstr("0.8600 ± 0.0017"));
  EXPECT_THAT(row_of(table, "bsp"), AllOf(HasSubstr("11.50 ± 1.77 s "), HasSubstr(" 2/2 ")));
  EXPECT_THAT(row_of(table, "asp"), AllOf(HasSubstr("5.75 ± 0.35 s "), HasSubstr(" 2/2 ")));
  EXPECT_THAT(row_of(table, "asp"), HasSubstr("2.00x"));
  // One seed of two reached it: its time alone, and no speed-up, which needs every seed.
  EXPECT_THAT(row_of(table, "ssp"), HasSubstr("7.25 s"));
  EXPECT_THAT(row_of(table, "ssp"), HasSubstr("1/2"));
  EXPECT_THAT(row_of(table, "ssp"), ::testing::Not(HasSubstr("x ")));
}

TEST(CompareTable, TheGridLineGivesTheEvaluationIntervals) {
  EXPECT_THAT(format_evaluation_grid({2, 2}), HasSubstr("every 2 s of engine time"));
  EXPECT_THAT(format_evaluation_grid({2, 0.25, 1}), HasSubstr("every 0.25 to 2 s of engine time"));
}

}  // namespace
}  // namespace hetps::cli
