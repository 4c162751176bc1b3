// What --force may replace: an output holding what a write killed midway left in it is still
// an output, and anything else in it makes it the user's.
#include "cli/output_kinds.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "support/scratch_dir.h"

namespace hetps::cli {
namespace {

namespace fs = std::filesystem;

void make_files(const fs::path& dir, const std::vector<std::string>& files) {
  for (const std::string& file : files) {
    fs::create_directories((dir / file).parent_path());
    std::ofstream(dir / file) << "{}";
  }
}

TEST(OutputKinds, ARunHoldingWhatAKilledWriteLeftIsARun) {
  const hetps::testing::ScratchDir scratch;
  make_files(scratch.path(), {"summary.json", "summary.json.tmp-123", "log.jsonl",
                              "checkpoints/checkpoint-2.ckpt.tmp-9", "report/report.html.tmp-9"});
  EXPECT_EQ(first_foreign(scratch.path(), run_output().foreign), std::nullopt);
}

TEST(OutputKinds, ANameThatOnlyLooksLikeAKilledWritesIsTheUsers) {
  for (const std::string note : {"summary.json.tmp-12x", "summary.json.tmp-", "notes.tmp-1.old",
                                 "summary.json.tmp-1.new.new", "checkpoints/x.tmp-9"}) {
    const hetps::testing::ScratchDir scratch;
    make_files(scratch.path(), {"summary.json", note});
    const std::optional<fs::path> foreign = first_foreign(scratch.path(), run_output().foreign);
    ASSERT_TRUE(foreign.has_value()) << note;
    EXPECT_EQ(*foreign, scratch.path() / note);
  }
}

// A seed's run staged beside its finished ones, killed while running (`.tmp-<pid>`) or in the
// instant between making its staging directory and naming it (`.tmp-<pid>.new`).
TEST(OutputKinds, AComparisonHoldingAKilledSeedsStagingIsAComparison) {
  const hetps::testing::ScratchDir scratch;
  make_files(scratch.path(), {"summary.csv", "bsp/seed-1/summary.json",
                              "bsp/seed-2.tmp-77/log.jsonl", "bsp/seed-3.tmp-77.new/log.jsonl"});
  EXPECT_EQ(first_foreign(scratch.path(), comparison_output().foreign), std::nullopt);

  make_files(scratch.path(), {"bsp/seed-4.tmp-77.old/log.jsonl"});
  EXPECT_EQ(first_foreign(scratch.path(), comparison_output().foreign),
            scratch.path() / "bsp" / "seed-4.tmp-77.old");
}

}  // namespace
}  // namespace hetps::cli
