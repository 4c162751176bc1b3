#include "data/load.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>

#include "data/file_kind.h"
#include "data/idx.h"
#include "data/synthetic.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;

// MNIST's and Fashion-MNIST's.
constexpr int kPublishedClasses = 10;

Dataset to_dataset(const LabelledImages& set, int classes) {
  Dataset dataset;
  dataset.channels = set.images.channels;
  dataset.height = set.images.rows;
  dataset.width = set.images.cols;
  dataset.classes = classes;
  dataset.inputs.resize(set.images.pixels.size());
  std::transform(set.images.pixels.begin(), set.images.pixels.end(), dataset.inputs.begin(),
                 [](uint8_t pixel) { return static_cast<float>(pixel) / 255.0f; });
  dataset.labels.assign(set.labels.begin(), set.labels.end());
  return dataset;
}

bool is_own_dataset(const config::DataConfig& cfg) { return cfg.name == "idx"; }

bool is_idx_dataset(const config::DataConfig& cfg) {
  return cfg.name == "fashion-mnist" || cfg.name == "mnist" || is_own_dataset(cfg);
}

fs::path idx_directory(const config::DataConfig& cfg) {
  return is_own_dataset(cfg) ? fs::path(cfg.dir) : fs::path(cfg.dir) / cfg.name;
}

// A run resumed, or a config.toml reused, from another directory reads a relative data.dir
// from there: the likeliest cause of files "not found" that were there when the run began.
std::string where_relative_dir_is_read(const config::DataConfig& cfg) {
  if (fs::path(cfg.dir).is_absolute()) return "";
  std::error_code ec;
  const fs::path working = fs::current_path(ec);
  if (ec) return "";
  return fmt::format(", which is relative: read from the working directory {}", working.string());
}

std::string missing_file_message(const fs::path& file, const config::DataConfig& cfg) {
  if (is_own_dataset(cfg)) {
    return fmt::format(
        "{}: file not found (data.name = 'idx' reads the four IDX files {}, {}, {} and {} from "
        "data.dir = '{}' itself{})",
        file.string(), kTrainImagesFile, kTrainLabelsFile, kTestImagesFile, kTestLabelsFile,
        cfg.dir, where_relative_dir_is_read(cfg));
  }
  return fmt::format(
      "{}: file not found (data.name = '{}', data.dir = '{}'{}); run `hetps data fetch {}` with "
      "the same data.dir, or copy the official IDX files there",
      file.string(), cfg.name, cfg.dir, where_relative_dir_is_read(cfg), cfg.name);
}

// A data.dir that is a file would otherwise be reported as its IDX files "not found".
void refuse_a_folder_that_is_a_file(const config::DataConfig& cfg) {
  for (const fs::path& folder : {fs::path(cfg.dir), idx_directory(cfg)}) {
    std::error_code ec;
    if (fs::exists(folder, ec) && !fs::is_directory(folder, ec)) {
      throw DataError(
          fmt::format("{}: is not a folder (data.name = '{}', data.dir = '{}'); "
                      "expected the folder of the data set's IDX files",
                      folder.string(), cfg.name, cfg.dir));
    }
  }
}

DataSplit load_idx_dataset(const config::DataConfig& cfg) {
  refuse_a_folder_that_is_a_file(cfg);
  for (const fs::path& file : data_files(cfg)) {
    if (const std::string kind = irregular_file_kind(file); !kind.empty()) {
      throw DataError(fmt::format("{}: is {}, expected an IDX file", file.string(), kind));
    }
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw DataError(missing_file_message(file, cfg));
  }
  const int classes = is_own_dataset(cfg) ? cfg.classes : kPublishedClasses;
  const fs::path dir = idx_directory(cfg);
  const IdxSplit split = read_idx_split(dir, classes);
  const IdxImages& train = split.train.images;
  const IdxImages& test = split.test.images;
  for (const auto& [images, file] :
       {std::pair{&train, kTrainImagesFile}, {&test, kTestImagesFile}}) {
    if (images->count == 0) {
      throw DataError(
          fmt::format("{}: holds no images; a data set needs at least one image to "
                      "train on and one to test on",
                      (dir / file).string()));
    }
  }
  if (train.channels != test.channels || train.rows != test.rows || train.cols != test.cols) {
    throw DataError(
        fmt::format("{}: images of {}x{}x{} (channels x rows x cols), but {} holds "
                    "images of {}x{}x{}: the model takes one size",
                    (dir / kTestImagesFile).string(), test.channels, test.rows, test.cols,
                    (dir / kTrainImagesFile).string(), train.channels, train.rows, train.cols));
  }
  return {to_dataset(split.train, classes), to_dataset(split.test, classes)};
}

void check_synthetic_size(const char* field, int64_t size) {
  if (size < 1) {
    throw DataError(
        fmt::format("{} = {}: the synthetic data set needs at least 1 sample", field, size));
  }
}

}  // namespace

std::vector<fs::path> data_files(const config::DataConfig& cfg) {
  if (!is_idx_dataset(cfg)) return {};
  const fs::path dir = idx_directory(cfg);
  return {dir / kTrainImagesFile, dir / kTrainLabelsFile, dir / kTestImagesFile,
          dir / kTestLabelsFile};
}

DataSplit load_data(const config::DataConfig& cfg, uint64_t seed) {
  if (is_idx_dataset(cfg)) return load_idx_dataset(cfg);
  if (cfg.name == "synthetic") {
    check_synthetic_size("data.synthetic_train", cfg.synthetic_train);
    check_synthetic_size("data.synthetic_test", cfg.synthetic_test);
    return make_synthetic(cfg.synthetic_train, cfg.synthetic_test, seed);
  }
  throw DataError(fmt::format("data.name = '{}' is not a known data set; allowed: {}", cfg.name,
                              fmt::join(kDatasetNames, ", ")));
}

}  // namespace hetps::data
