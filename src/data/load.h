// Loading the data set a run is configured with.
//
//   DataSplit data = load_data(config.data, config.seed);
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "data/dataset.h"

namespace hetps::data {

// The values `data.name` accepts.
inline constexpr std::array<std::string_view, 4> kDatasetNames = {"fashion-mnist", "idx", "mnist",
                                                                  "synthetic"};

// `fashion-mnist` and `mnist` read the four standard IDX files from `<cfg.dir>/<cfg.name>/`
// (put there by `hetps data fetch <name>`, or the official files copied in), 10 classes; `idx`,
// a data set of the user's own, reads them from `cfg.dir` itself, with `cfg.classes` classes
// and images of any size and channel count (both sets the same); `synthetic` generates
// `cfg.synthetic_train` and `cfg.synthetic_test` samples from `seed`. Inputs are scaled to
// [0, 1]. Throws DataError naming the field or file and what is wrong: an unknown `data.name`,
// missing files (with the fetch command to run), corrupt files, bad sizes.
DataSplit load_data(const config::DataConfig& cfg, uint64_t seed);

// The files load_data reads for `cfg`: the four IDX files, or none (synthetic).
std::vector<std::filesystem::path> data_files(const config::DataConfig& cfg);

}  // namespace hetps::data
