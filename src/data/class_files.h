// The converter core of `hetps data fetch`: npm image packages store one JSON file per class;
// this turns such files into an IDX train/test split. No npm involved, so it is testable on
// small files.
//
//   std::vector<DecodedClass> classes;
//   for (int c = 0; c < 10; ++c) classes.push_back(decode_class_file(dir / fmt::format("{}.json",
//   c), format)); ConvertedDataset converted = split_classes(classes, format);
//   write_idx_split(out_dir, converted.split);
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "data/idx.h"

namespace hetps::data {

// How a package's class files store their images; every file is an object {"data": [...]}.
enum class PixelEncoding {
  // One array per image of rows × cols integers in 0..255 (the `fashion-mnist` package).
  kArrayPerImage,
  // One flat array of all the class's pixels, image after image, as numbers in [0, 1]
  // (the `mnist` package); written as round(value × 255), so binarized 0/1 pixels become 0/255.
  kFlatUnitInterval,
};

struct ClassFilesFormat {
  PixelEncoding encoding = PixelEncoding::kArrayPerImage;
  int rows = 28;
  int cols = 28;
  int64_t test_per_class = 0;  // images of each class that go to the test set
};

// One class file's well-formed images; malformed entries are skipped and counted, never padded
// or repaired. A malformed entry is: not an array, the wrong length (empty included), a value
// that is not a number or is out of range, or (flat encoding) a trailing partial image.
struct DecodedClass {
  std::filesystem::path source;
  int64_t images = 0;
  int64_t skipped = 0;
  std::vector<uint8_t> pixels;  // images × rows × cols
};

struct ConvertedDataset {
  IdxSplit split;
  int64_t valid = 0;    // well-formed images over all classes
  int64_t skipped = 0;  // malformed entries over all classes
};

// Throws DataError naming the file when it is missing, not JSON, or not {"data": [...]}.
DecodedClass decode_class_file(const std::filesystem::path& file, const ClassFilesFormat& format);

// `classes[k]` holds class k. Throws DataError naming the file of a class with no more than
// `format.test_per_class` images (it would leave no training image).
ConvertedDataset split_classes(const std::vector<DecodedClass>& classes,
                               const ClassFilesFormat& format);

}  // namespace hetps::data
