#include "data/load.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "data/idx.h"
#include "data/synthetic.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;

constexpr int kIdxClasses = 10;

Dataset to_dataset(const LabelledImages& set) {
  Dataset dataset;
  dataset.channels = 1;
  dataset.height = set.images.rows;
  dataset.width = set.images.cols;
  dataset.classes = kIdxClasses;
  dataset.inputs.resize(set.images.pixels.size());
  std::transform(set.images.pixels.begin(), set.images.pixels.end(), dataset.inputs.begin(),
                 [](uint8_t pixel) { return static_cast<float>(pixel) / 255.0f; });
  dataset.labels.assign(set.labels.begin(), set.labels.end());
  return dataset;
}

bool is_idx_dataset(const config::DataConfig& cfg) {
  return cfg.name == "fashion-mnist" || cfg.name == "mnist";
}

DataSplit load_idx_dataset(const config::DataConfig& cfg) {
  for (const fs::path& file : data_files(cfg)) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      throw DataError(fmt::format(
          "{}: file not found (data.name = '{}', data.dir = '{}'); run `hetps data fetch {}` "
          "with the same data.dir, or copy the official IDX files there",
          file.string(), cfg.name, cfg.dir, cfg.name));
    }
  }
  const IdxSplit split = read_idx_split(fs::path(cfg.dir) / cfg.name, kIdxClasses);
  return {to_dataset(split.train), to_dataset(split.test)};
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
  const fs::path dir = fs::path(cfg.dir) / cfg.name;
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
