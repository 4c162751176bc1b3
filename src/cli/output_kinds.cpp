#include "cli/output_kinds.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "cli/compare_plan.h"
#include "cli/usage_error.h"
#include "report/report.h"

namespace hetps::cli {
namespace fs = std::filesystem;
namespace {

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// An entry's name without the `.tmp-<pid>` that a write killed midway leaves on it (the
// atomic writes of config/atomic_file.h, and StagedDirectory's staging directories).
std::string name_of(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  constexpr std::string_view kStaging = ".tmp-";
  const size_t staging = name.rfind(kStaging);
  if (staging == std::string::npos) return name;
  return all_digits(std::string_view(name).substr(staging + kStaging.size()))
             ? name.substr(0, staging)
             : name;
}

bool is_file_named(const fs::directory_entry& entry, const std::set<std::string>& names) {
  return entry.is_regular_file() && names.contains(name_of(entry));
}

bool is_directory_named(const fs::directory_entry& entry, const std::set<std::string>& names) {
  return entry.is_directory() && names.contains(name_of(entry));
}

// "seed-12": a comparison's run of one seed.
bool is_seed_directory(const fs::directory_entry& entry) {
  constexpr std::string_view kPrefix = "seed-";
  const std::string name = name_of(entry);
  return entry.is_directory() && name.starts_with(kPrefix) &&
         all_digits(std::string_view(name).substr(kPrefix.size()));
}

// A comparison's directory of one --protocols entry: its seeds' runs and nothing else.
bool is_entry_directory(const fs::directory_entry& entry) {
  if (!entry.is_directory()) return false;
  const fs::directory_iterator inside(entry.path());
  return std::all_of(begin(inside), end(inside), is_seed_directory);
}

}  // namespace

OutputKind run_output() {
  return {"a hetps run directory", {"summary.json"}, [](const fs::directory_entry& entry) {
            return is_file_named(entry, {"config.toml", "log.jsonl", "summary.json", "timeline.csv",
                                         "shard_crashes.json"}) ||
                   is_directory_named(entry, {"checkpoints", "report"});
          }};
}

OutputKind comparison_output() {
  return {"a hetps comparison",
          {"summary.csv", kComparePlanFile},
          [](const fs::directory_entry& entry) {
            return is_file_named(entry, {"summary.csv", kComparePlanFile}) ||
                   is_directory_named(entry, {"report"}) || is_entry_directory(entry);
          }};
}

OutputKind report_output() {
  return {"a hetps report", {report::kReportPage}, [](const fs::directory_entry& entry) {
            const std::string extension = fs::path(name_of(entry)).extension().string();
            return entry.is_regular_file() && (extension == ".html" || extension == ".csv" ||
                                               extension == ".gp" || extension == ".svg");
          }};
}

void check_output_file(const fs::path& file, std::string_view what,
                       const std::function<void(const fs::path&)>& read_earlier) {
  std::error_code error;
  const fs::file_status status = fs::status(file, error);
  if (!fs::exists(status)) return;
  if (fs::is_directory(status)) {
    throw UsageError(
        fmt::format("--out {}: a directory; expected the name of {}", file.string(), what));
  }
  try {
    read_earlier(file);
  } catch (const std::exception&) {
    throw UsageError(
        fmt::format("--out {}: the file exists and is not {}; remove it yourself or "
                    "choose another --out",
                    file.string(), what));
  }
}

}  // namespace hetps::cli
