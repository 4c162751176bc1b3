// A comparison's plan, `compare.json` in its output directory: every run `hetps compare` is to
// make (its config and directory) and the report's timeline window, written before the first
// run starts. `hetps compare --resume DIR` continues a comparison that was stopped from it,
// with the runs it had planned, whatever the command line said.
//
//   write_compare_plan(dir, plan);                     // before the first run
//   const ComparePlan plan = read_compare_plan(dir);   // on --resume
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "report/report.h"

namespace hetps::cli {

inline constexpr const char* kComparePlanFile = "compare.json";

struct PlannedRun {
  config::Config config;
  std::string directory;  // relative to the comparison's output directory: <run name>/seed-<seed>
  // Read back from a plan: the digests of the files the config names (input_files.h) when the
  // comparison was planned; null in a plan from before they were kept.
  nlohmann::json inputs;
};

// `config`'s run, in the directory its run name and seed give it.
PlannedRun planned_run(config::Config config);

struct ComparePlan {
  std::vector<PlannedRun> runs;
  report::ReportOptions report;
};

// Writes `dir`/compare.json atomically, with the digests of the files each run's config names.
// The runs' directories are not written: read back, they follow from the configs, so a plan
// cannot send a run outside the comparison's directory.
void write_compare_plan(const std::filesystem::path& dir, const ComparePlan& plan);

// Throws UsageError naming the file and what is wrong with it when it is missing, is not a plan
// or holds a config that does not resolve.
ComparePlan read_compare_plan(const std::filesystem::path& dir);

// Throws UsageError naming the first file a planned run names that holds other contents than
// when the comparison was planned: its finished runs would not compare with those still to run.
void refuse_changed_inputs(const ComparePlan& plan, const std::filesystem::path& dir);

}  // namespace hetps::cli
