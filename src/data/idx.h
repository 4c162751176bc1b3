// The IDX file format of MNIST and Fashion-MNIST: a big-endian header (magic number, then one
// 32-bit size per dimension) followed by the uint8 data. A data set directory holds four files
// with the standard names below. Images have 3 dimensions [count, rows, cols] (grey, as MNIST's)
// or 4 [count, channels, rows, cols] (colour, channels first, as libtorch takes them).
//
//   LabelledImages test = read_idx_labelled(dir / kTestImagesFile, dir / kTestLabelsFile);
//   write_idx_split(out_dir, split);  // each file written atomically
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace hetps::data {

inline constexpr uint32_t kIdxImagesMagic = 0x00000803;         // uint8 data, 3 dimensions
inline constexpr uint32_t kIdxChannelImagesMagic = 0x00000804;  // uint8 data, 4 dimensions
inline constexpr uint32_t kIdxLabelsMagic = 0x00000801;         // uint8 data, 1 dimension

inline constexpr const char* kTrainImagesFile = "train-images-idx3-ubyte";
inline constexpr const char* kTrainLabelsFile = "train-labels-idx1-ubyte";
inline constexpr const char* kTestImagesFile = "t10k-images-idx3-ubyte";
inline constexpr const char* kTestLabelsFile = "t10k-labels-idx1-ubyte";

// Images as stored on disk, each channel 0 (background) to 255 (full intensity).
struct IdxImages {
  int64_t count = 0;
  int rows = 0;
  int cols = 0;
  std::vector<uint8_t> pixels;  // count × channels × rows × cols, row-major, image after image
  // Last, so that grey images initialize as {count, rows, cols, pixels}. Written with 3
  // dimensions when 1 (the files MNIST's readers expect), with 4 otherwise.
  int channels = 1;

  bool operator==(const IdxImages&) const = default;
};

struct LabelledImages {
  IdxImages images;
  std::vector<uint8_t> labels;  // one class per image

  bool operator==(const LabelledImages&) const = default;
};

struct IdxSplit {
  LabelledImages train;
  LabelledImages test;

  bool operator==(const IdxSplit&) const = default;
};

// Each reader throws DataError naming the file and what is wrong with it: missing, truncated,
// bad magic number (images: 3 or 4 dimensions; labels: 1), dimensions that do not match the file
// size, a label >= `classes`, or image and label files of different lengths.
IdxImages read_idx_images(const std::filesystem::path& path);
// What the readers do once a file's bytes are read: `name` is the file's, for the errors.
IdxImages parse_idx_images(std::span<const uint8_t> bytes, const std::string& name);
std::vector<uint8_t> parse_idx_labels(std::span<const uint8_t> bytes, const std::string& name,
                                      int classes = 10);
std::vector<uint8_t> read_idx_labels(const std::filesystem::path& path, int classes = 10);
LabelledImages read_idx_labelled(const std::filesystem::path& images_path,
                                 const std::filesystem::path& labels_path, int classes = 10);
// Reads the four standard files under `dir`.
IdxSplit read_idx_split(const std::filesystem::path& dir, int classes = 10);

// Writers replace the file atomically (write `<path>.tmp.<pid>`, then rename), so a reader never
// sees half a file; a failure throws DataError naming the file.
void write_idx_images(const std::filesystem::path& path, const IdxImages& images);
void write_idx_labels(const std::filesystem::path& path, const std::vector<uint8_t>& labels);
// Writes the four standard files under `dir`, which must exist.
void write_idx_split(const std::filesystem::path& dir, const IdxSplit& split);

}  // namespace hetps::data
