#include "cli/compare_plan.h"

#include <fstream>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/input_files.h"
#include "cli/run_files.h"
#include "cli/usage_error.h"
#include "config/atomic_file.h"
#include "config/error.h"
#include "config/json_fields.h"
#include "config/resolve.h"
#include "config/settings.h"
#include "config/toml_writer.h"
#include "report/timeline_window.h"

namespace hetps::cli {
namespace {

// The plan's own format, apart from the configs' (which config.toml's rules govern).
constexpr int kPlanFormat = 1;

nlohmann::json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) {
    throw UsageError(
        fmt::format("{}: cannot be read: not a comparison directory, or not one "
                    "that can be resumed",
                    file.string()));
  }
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& error) {
    throw UsageError(fmt::format("{}: not JSON: {}", file.string(), error.what()));
  }
}

}  // namespace

PlannedRun planned_run(config::Config config) {
  std::string directory =
      fmt::format("{}/seed-{}", run_directory_name(config.run.name), config.seed);
  return {std::move(config), std::move(directory), nullptr};
}

void write_compare_plan(const std::filesystem::path& dir, const ComparePlan& plan) {
  nlohmann::json runs = nlohmann::json::array();
  KnownDigests known;
  for (const PlannedRun& run : plan.runs) {
    runs.push_back({{"config", config::to_toml_text(run.config)},
                    {"inputs", input_file_digests(run.config, &known)}});
  }
  nlohmann::json json = {{"format", kPlanFormat}, {"runs", runs}};
  if (plan.report.timeline_window) {
    json["timeline_window"] = report::timeline_window_text(*plan.report.timeline_window);
  }
  config::write_file_atomically(dir / kComparePlanFile, json.dump(2) + '\n', "comparison plan");
}

ComparePlan read_compare_plan(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kComparePlanFile;
  const nlohmann::json json = read_json(file);
  const auto refuse = [&](const std::string& what) {
    return UsageError(fmt::format("{}: {}", file.string(), what));
  };
  ComparePlan plan;
  try {
    const config::JsonFields fields(file.string());
    fields.check_object(json, "the plan", "a JSON object");
    const nlohmann::json& format = fields.field(json, "format", "format");
    if (format != kPlanFormat) fields.reject("format", fmt::format("{}", kPlanFormat), format);
    const nlohmann::json& runs = fields.list(json, "runs", "runs", "a list of runs");
    for (size_t i = 0; i < runs.size(); ++i) {
      const std::string path = fmt::format("runs[{}]", i);
      fields.check_object(runs[i], path);
      config::UserSettings settings;
      settings.add_text(fields.text(runs[i], "config", path + ".config"),
                        fmt::format("{}: {}.config", file.string(), path));
      plan.runs.push_back(planned_run(config::resolve(settings, {.written_by_hetps = true})));
      if (runs[i].contains("inputs")) {
        const nlohmann::json& inputs = runs[i].at("inputs");
        fields.check_object(inputs, path + ".inputs");
        for (const auto& [setting, digest] : inputs.items()) {
          fields.check_object(digest, path + ".inputs." + setting);
        }
        plan.runs.back().inputs = inputs;
      }
      // Two runs in one directory would write over each other.
      for (size_t earlier = 0; earlier + 1 < plan.runs.size(); ++earlier) {
        if (plan.runs[earlier].directory == plan.runs.back().directory) {
          throw refuse(fmt::format("runs[{}] and {} are the same run (run.name and seed), {}",
                                   earlier, path, plan.runs.back().directory));
        }
      }
    }
    if (json.contains("timeline_window")) {
      plan.report.timeline_window =
          report::parse_timeline_window(fields.text(json, "timeline_window", "timeline_window"));
    }
  } catch (const config::ConfigError& error) {
    throw UsageError(error.what());
  } catch (const UsageError&) {
    throw;
  } catch (const std::invalid_argument& error) {  // the timeline window
    throw refuse(fmt::format("timeline_window: {}", error.what()));
  }
  if (plan.runs.empty()) throw refuse("it plans no runs");
  return plan;
}

void refuse_changed_inputs(const ComparePlan& plan, const std::filesystem::path& dir) {
  KnownDigests known;
  for (const PlannedRun& run : plan.runs) {
    if (run.inputs.is_null()) continue;
    const std::string changed =
        changed_input_file(run.inputs, input_file_digests(run.config, &known));
    if (changed.empty()) continue;
    throw UsageError(fmt::format(
        "--resume {}: {} holds other contents than when the comparison started (run {}): the "
        "runs it kept would not compare with those still to run; put back the file it started "
        "with, or start a new comparison",
        dir.string(), changed, run.directory));
  }
}

}  // namespace hetps::cli
