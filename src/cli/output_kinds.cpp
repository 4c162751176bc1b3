#include "cli/output_kinds.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <set>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "checkpoint/checkpoint_store.h"
#include "cli/compare_plan.h"
#include "cli/usage_error.h"
#include "config/atomic_file.h"
#include "report/report.h"

namespace hetps::cli {
namespace fs = std::filesystem;
namespace {

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// An entry's name without the `.tmp-<pid>` that a write killed midway leaves on it (the
// atomic writes of config/atomic_file.h, and StagedDirectory's staging directories), or the
// `.tmp-<pid>.new` of a staging directory killed before it took its name.
std::string name_of(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  constexpr std::string_view kStaging = ".tmp-";
  const size_t staging = name.rfind(kStaging);
  if (staging == std::string::npos) return name;
  std::string_view pid = std::string_view(name).substr(staging + kStaging.size());
  if (pid.ends_with(".new")) pid.remove_suffix(4);
  return all_digits(pid) ? name.substr(0, staging) : name;
}

bool is_file_named(const fs::directory_entry& entry, const std::set<std::string>& names) {
  return entry.is_regular_file() && names.contains(name_of(entry));
}

// "<prefix><digits><suffix>", as a comparison's "seed-12" and a checkpoint's "checkpoint-3.ckpt".
bool is_numbered(const std::string& name, std::string_view prefix, std::string_view suffix) {
  return name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) &&
         name.ends_with(suffix) &&
         all_digits(std::string_view(name).substr(prefix.size(),
                                                  name.size() - prefix.size() - suffix.size()));
}

// A file only when `written` says hetps writes it.
ForeignEntry files_where(std::function<bool(const fs::directory_entry&)> written) {
  return [written = std::move(written)](const fs::directory_entry& entry) {
    return written(entry) ? std::nullopt : std::optional<fs::path>(entry.path());
  };
}

bool is_directory_named(const fs::directory_entry& entry, std::string_view name) {
  return entry.is_directory() && name_of(entry) == name;
}

bool is_report_file(const fs::directory_entry& entry) {
  const std::string extension = fs::path(name_of(entry)).extension().string();
  return entry.is_regular_file() &&
         (extension == ".html" || extension == ".csv" || extension == ".gp" || extension == ".svg");
}

bool is_checkpoint_file(const fs::directory_entry& entry) {
  return entry.is_regular_file() && checkpoint::checkpoint_number(name_of(entry)).has_value();
}

std::optional<fs::path> foreign_in_run(const fs::directory_entry& entry) {
  if (is_file_named(entry, {"config.toml", "log.jsonl", "summary.json", "timeline.csv",
                            "shard_crashes.json"})) {
    return std::nullopt;
  }
  if (is_directory_named(entry, "checkpoints")) {
    return first_foreign(entry.path(), files_where(is_checkpoint_file));
  }
  if (is_directory_named(entry, "report")) {
    return first_foreign(entry.path(), files_where(is_report_file));
  }
  return entry.path();
}

// A comparison's directory of one --protocols entry: its seeds' runs ("seed-12") and nothing
// else.
std::optional<fs::path> foreign_in_entry(const fs::directory_entry& entry) {
  if (!entry.is_directory()) return entry.path();
  return first_foreign(entry.path(), [](const fs::directory_entry& seed) {
    if (!seed.is_directory() || !is_numbered(name_of(seed), "seed-", "")) {
      return std::optional<fs::path>(seed.path());
    }
    return first_foreign(seed.path(), foreign_in_run);
  });
}

}  // namespace

std::optional<fs::path> first_foreign(const fs::path& dir, const ForeignEntry& foreign) {
  for (const fs::directory_entry& inside : fs::directory_iterator(dir)) {
    if (auto found = foreign(inside)) return found;
  }
  return std::nullopt;
}

// log.jsonl: a run that did not finish (killed, stopped, stalled) is an output too.
OutputKind run_output() {
  return {"a hetps run directory", {"summary.json", "log.jsonl"}, foreign_in_run};
}

OutputKind comparison_output() {
  return {"a hetps comparison",
          {"summary.csv", kComparePlanFile},
          [](const fs::directory_entry& entry) -> std::optional<fs::path> {
            if (is_file_named(entry, {"summary.csv", kComparePlanFile})) return std::nullopt;
            if (is_directory_named(entry, "report")) {
              return first_foreign(entry.path(), files_where(is_report_file));
            }
            return foreign_in_entry(entry);
          }};
}

OutputKind report_output() {
  return {"a hetps report", {report::kReportPage}, files_where(is_report_file)};
}

void check_output_file(const fs::path& file, std::string_view flag, std::string_view what,
                       const std::function<void(const fs::path&)>& read_earlier) {
  std::error_code error;
  const fs::file_status status = fs::status(file, error);
  if (fs::is_directory(status)) {
    throw UsageError(
        fmt::format("{} {}: a directory; expected the name of {}", flag, file.string(), what));
  }
  if (fs::exists(status)) {
    try {
      read_earlier(file);
    } catch (const std::exception&) {
      throw UsageError(
          fmt::format("{} {}: the file exists and is not {}; remove it yourself or "
                      "choose another --out",
                      flag, file.string(), what));
    }
  }
  try {
    config::check_can_write_in(file.parent_path());
  } catch (const std::runtime_error& unwritable) {
    throw UsageError(fmt::format("{} {}: cannot write {} there: {}", flag, file.string(), what,
                                 unwritable.what()));
  }
}

}  // namespace hetps::cli
