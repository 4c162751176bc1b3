#include "report/run_reader.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "report/csv.h"
#include "report/input_error.h"
#include "report/run_log_file.h"
#include "report/summary_file.h"
#include "report/timeline_file.h"

namespace hetps::report {
namespace fs = std::filesystem;
namespace {

RunSetting read_setting(const fs::path& file) {
  if (!fs::is_regular_file(file)) {
    throw ReportInputError(
        fmt::format("{}: missing (every run directory holds its resolved config)", file.string()));
  }
  try {
    const toml::table config = toml::parse_file(file.string());
    RunSetting setting;
    setting.engine = config["engine"].value_or(std::string());
    setting.scenario = config["cluster"]["scenario"].value_or(std::string());
    setting.model = config["model"]["name"].value_or(std::string());
    setting.data = config["data"]["name"].value_or(std::string());
    setting.workers = config["cluster"]["workers"].value_or(int64_t{0});
    setting.eval_interval = config["train"]["eval_interval"].value_or(0.0);
    setting.timeline_off = config["run"]["timeline_intervals"].value_or(int64_t{-1}) == 0;
    toml::table trained_as = config;
    trained_as.erase("seed");
    if (toml::table* run = trained_as["run"].as_table()) {
      // Of run.*, only these change how a run trains (its step times on threads and mpi).
      toml::table kept;
      for (const char* key : {"threads_per_worker", "server_apply_threads"}) {
        if (const toml::node* value = run->get(key)) kept.insert(key, *value);
      }
      *run = std::move(kept);
    }
    // Where a published data set lies is no setting; with data.name = "idx" it is the data.
    if (toml::table* data = trained_as["data"].as_table();
        data != nullptr && config["data"]["name"].value_or(std::string()) != "idx") {
      data->erase("dir");
    }
    std::ostringstream text;
    text << trained_as;
    setting.trained_as = text.str();
    return setting;
  } catch (const toml::parse_error& error) {
    throw ReportInputError(fmt::format("{}:{}: expected TOML: {}", file.string(),
                                       error.source().begin.line, error.description()));
  }
}

RunRecord read_run(const fs::path& directory) {
  RunRecord run;
  run.directory = directory;
  run.setting = read_setting(directory / "config.toml");
  SummaryFile summary = read_summary_file(directory / "summary.json");
  run.summary = std::move(summary.summary);
  run.staleness_recorded = summary.staleness_recorded;
  run.entry = run.summary.run_name;
  RunLogFile log = read_run_log(directory / "log.jsonl");
  run.evaluations = std::move(log.evaluations);
  run.events = std::move(log.events);
  if (auto intervals = read_timeline_file(directory / kTimelineFile, run.summary.workers)) {
    // A summary from before the stride was written kept every cycle.
    run.timeline = RunTimeline{std::move(*intervals), summary.timeline_cycle_stride.value_or(1),
                               summary.timeline_whole_cycles};
  }
  return run;
}

// The runs summary.csv lists, by its "directory" column (relative to the comparison).
std::vector<fs::path> listed_runs(const fs::path& comparison) {
  const fs::path file = comparison / "summary.csv";
  std::ifstream in(file);
  if (!in) throw ReportInputError(fmt::format("{}: unreadable", file.string()));
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = split_csv_line(line);
  const auto column = std::find(header.begin(), header.end(), "directory");
  if (column == header.end()) {
    throw ReportInputError(fmt::format(
        "{}:1: expected a header with a \"directory\" column, got \"{}\"", file.string(), line));
  }
  std::vector<fs::path> runs;
  for (int number = 2; std::getline(in, line); ++number) {
    std::vector<std::string> cells;
    try {
      cells = split_csv_line(line);
    } catch (const std::invalid_argument& error) {
      throw ReportInputError(fmt::format("{}:{}: {}", file.string(), number, error.what()));
    }
    if (cells.size() != header.size()) {
      throw ReportInputError(fmt::format("{}:{}: expected {} cells like the header, got {}",
                                         file.string(), number, header.size(), cells.size()));
    }
    const fs::path run = comparison / cells[static_cast<size_t>(column - header.begin())];
    if (!fs::is_directory(run)) {
      throw ReportInputError(fmt::format("{}:{}: run directory {} does not exist", file.string(),
                                         number, run.string()));
    }
    runs.push_back(run);
  }
  if (runs.empty()) throw ReportInputError(fmt::format("{}: lists no run", file.string()));
  return runs;
}

std::vector<fs::path> runs_in(const fs::path& directory) {
  if (!fs::is_directory(directory)) {
    throw ReportInputError(
        fmt::format("{}: not a directory (expected a hetps run directory)", directory.string()));
  }
  if (fs::exists(directory / "summary.csv")) return listed_runs(directory);
  // `hetps compare` writes its plan first and summary.csv at its end (cli/compare_plan.h).
  if (fs::exists(directory / "compare.json")) {
    throw ReportInputError(fmt::format(
        "{}: a comparison that has not finished (it has no summary.csv yet): finish it with "
        "`hetps compare --resume {}`, or report its finished runs by their directories",
        directory.string(), directory.string()));
  }
  if (fs::exists(directory / "log.jsonl") || fs::exists(directory / "summary.json"))
    return {directory};
  throw ReportInputError(
      fmt::format("{}: not a hetps run directory: expected summary.csv (from hetps compare) or "
                  "config.toml, log.jsonl and summary.json (from hetps train)",
                  directory.string()));
}

// Two runs with the same entry and seed, if any: a report cannot tell them apart.
std::optional<std::pair<const RunRecord*, const RunRecord*>> same_entry_and_seed(
    const std::vector<RunRecord>& runs) {
  std::map<std::pair<std::string, uint64_t>, const RunRecord*> seen;
  for (const RunRecord& run : runs) {
    const auto [first, inserted] = seen.insert({{run.entry, run.summary.seed}, &run});
    if (!inserted) return std::pair{first->second, &run};
  }
  return std::nullopt;
}

// Two runs named alike, given in different directories, that were trained differently, if
// any: their results are no seeds of one setting. (The seeds of a comparison are by
// construction, even where a newer hetps that resumed it wrote a key more.)
std::optional<std::pair<const RunRecord*, const RunRecord*>> alike_but_trained_differently(
    const std::vector<RunRecord>& runs, const std::vector<size_t>& given) {
  std::map<std::string, size_t> first_of_entry;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto [first, inserted] = first_of_entry.insert({runs[i].entry, i});
    const size_t j = first->second;
    if (!inserted && given[j] != given[i] &&
        runs[j].setting.trained_as != runs[i].setting.trained_as) {
      return std::pair{&runs[j], &runs[i]};
    }
  }
  return std::nullopt;
}

// Each directory's name by the fewest last components of its path, links resolved, that tell
// it apart from every other one's as many: "runs/cmp-a/" and "runs/cmp-b" are "cmp-a" and
// "cmp-b", "x/cmp" and "y/cmp" are "x/cmp" and "y/cmp". Names differ unless two paths are one
// directory, which read_runs refuses first.
std::vector<std::string> distinguishing_names(const std::vector<fs::path>& directories) {
  std::vector<std::vector<std::string>> components;
  for (const fs::path& directory : directories) {
    std::vector<std::string>& parts = components.emplace_back();
    for (const fs::path& part : fs::weakly_canonical(directory)) {
      if (!part.empty() && part != part.root_path()) parts.push_back(part.string());
    }
  }
  const auto suffix = [&](size_t i, size_t count) {
    const std::vector<std::string>& parts = components[i];
    std::string name;
    for (size_t k = parts.size() - std::min(count, parts.size()); k < parts.size(); ++k) {
      name += (name.empty() ? "" : "/") + parts[k];
    }
    return name;
  };
  std::vector<std::string> names;
  for (size_t i = 0; i < components.size(); ++i) {
    size_t count = 1;
    const auto shared = [&] {
      for (size_t j = 0; j < components.size(); ++j) {
        if (j != i && suffix(j, count) == suffix(i, count)) return true;
      }
      return false;
    };
    while (count < components[i].size() && shared()) ++count;
    names.push_back(suffix(i, count));
  }
  return names;
}

}  // namespace

std::vector<RunRecord> read_runs(const std::vector<fs::path>& directories) {
  for (size_t i = 0; i < directories.size(); ++i) {
    for (size_t j = i + 1; j < directories.size(); ++j) {
      std::error_code error;  // one that does not exist is named by runs_in below
      if (fs::equivalent(directories[i], directories[j], error)) {
        throw ReportInputError(fmt::format("{} and {} are the same directory: give it once",
                                           directories[i].string(), directories[j].string()));
      }
    }
  }
  std::vector<RunRecord> runs;
  std::vector<size_t> given;  // per run, the directory given it came from
  for (const fs::path& directory : directories) {
    for (const fs::path& run : runs_in(directory)) {
      // A comparison and one of its runs given beside it: the run would be plotted twice.
      for (const RunRecord& earlier : runs) {
        std::error_code error;
        if (fs::equivalent(earlier.directory, run, error)) {
          throw ReportInputError(fmt::format("{} and {} are the same run: give it once",
                                             earlier.directory.string(), run.string()));
        }
      }
      runs.push_back(read_run(run));
      given.push_back(static_cast<size_t>(&directory - directories.data()));
    }
  }
  // Two comparisons of the same protocols both hold "bsp" seed 1, and two `train` runs of ssp
  // with other staleness bounds are both "ssp": they stay apart as "cmp-a/bsp" and
  // "cmp-b/bsp", or "s0/ssp" and "s50/ssp".
  if (!same_entry_and_seed(runs) && !alike_but_trained_differently(runs, given)) return runs;
  const std::vector<std::string> names = distinguishing_names(directories);
  for (size_t i = 0; i < runs.size(); ++i) runs[i].entry = names[given[i]] + "/" + runs[i].entry;
  // Left: two runs of one comparison that name one entry and seed (an edited summary.json).
  if (const auto twins = same_entry_and_seed(runs)) {
    throw ReportInputError(fmt::format(
        "{} and {} are both run \"{}\" seed {} of one comparison: a report cannot tell them "
        "apart",
        twins->first->directory.string(), twins->second->directory.string(), twins->first->entry,
        twins->first->summary.seed));
  }
  return runs;
}

}  // namespace hetps::report
