// The kinds of output directory hetps writes, as --force (and `report`, which regenerates its
// report in place) may replace them: a directory that holds one of the kind's markers and
// nothing else than what hetps writes there. A marker alone is not enough: a project directory
// that happens to hold a summary.json, or a report.html, must never be deleted with its other
// files.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hetps::cli {

// The first path at or below an entry that hetps does not write there, if any.
using ForeignEntry =
    std::function<std::optional<std::filesystem::path>(const std::filesystem::directory_entry&)>;

struct OutputKind {
  std::string name;                  // "a hetps run directory", for messages
  std::vector<std::string> markers;  // such a directory holds one of these at least
  // For an entry at the directory's top level: what in it hetps does not write there, all the
  // way down (a note kept in a run's checkpoints/ would be deleted with it).
  ForeignEntry foreign;
};

// The first path in `dir`, at any depth, that `foreign` (an OutputKind's) finds.
std::optional<std::filesystem::path> first_foreign(const std::filesystem::path& dir,
                                                   const ForeignEntry& foreign);

// `hetps train`: config.toml, log.jsonl, summary.json, timeline.csv, shard_crashes.json,
// checkpoints/ and report/.
OutputKind run_output();
// `hetps compare`: summary.csv, compare.json, report/, and per entry a directory of seed-N runs.
OutputKind comparison_output();
// `hetps report`: report.html and the CSV data, gnuplot scripts and SVG plots beside it.
OutputKind report_output();

// Before any work, for a command that writes one file (holding `what`, e.g. "a policy file"),
// named by `flag` (--out, or the option its default lies under): throws UsageError when `file`
// is a directory, or an existing file that `read_earlier` refuses (throws on) as an earlier
// output of the command: a file of the user's, which must not be overwritten; and when no file
// can be created where `file` goes.
void check_output_file(const std::filesystem::path& file, std::string_view flag,
                       std::string_view what,
                       const std::function<void(const std::filesystem::path&)>& read_earlier);

}  // namespace hetps::cli
