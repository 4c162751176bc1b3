#include <gtest/gtest.h>

#include "report/csv.h"

namespace hetps::report {
namespace {

TEST(CsvTest, QuotesOnlyCellsThatNeedIt) {
  EXPECT_EQ(csv_cell("ssp:staleness=8"), "ssp:staleness=8");
  EXPECT_EQ(csv_cell("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_cell("two\nlines"), "\"two\nlines\"");
}

TEST(CsvTest, SplitReadsBackWhatCellsWrote) {
  const std::vector<std::string> cells = {"plain", "a,b", "say \"hi\"", "", "last"};
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) line += (i > 0 ? "," : "") + csv_cell(cells[i]);
  EXPECT_EQ(split_csv_line(line), cells);
  EXPECT_EQ(split_csv_line(""), std::vector<std::string>{""});
}

TEST(CsvTest, SplitRefusesAnUnclosedOrTrailedQuote) {
  EXPECT_THROW(split_csv_line("a,\"open"), std::invalid_argument);
  EXPECT_THROW(split_csv_line("\"closed\"x,b"), std::invalid_argument);
}

}  // namespace
}  // namespace hetps::report
