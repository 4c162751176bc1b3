#include "data/class_files.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>

#include "data/dataset.h"
#include "data/random.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The split is a property of the files on disk, the same for every run: a fixed seed, not the
// run seed.
constexpr uint64_t kSplitSeed = 0x5eed'da7a;
constexpr uint64_t kTestOrderStream = 1 << 20;  // above every class index
constexpr uint64_t kTrainOrderStream = 1 << 21;

json parse_class_file(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw DataError(fmt::format("{}: class file not found", file.string()));
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw DataError(fmt::format("{}: not valid JSON: {}", file.string(), e.what()));
  }
}

// The pixel a JSON value encodes, or false when the value is malformed.
bool to_pixel(const json& value, PixelEncoding encoding, uint8_t& pixel) {
  if (!value.is_number()) return false;
  const double v = value.get<double>();
  if (encoding == PixelEncoding::kArrayPerImage) {
    if (v < 0 || v > 255 || v != std::floor(v)) return false;
    pixel = static_cast<uint8_t>(v);
  } else {
    if (v < 0 || v > 1) return false;
    pixel = static_cast<uint8_t>(std::lround(v * 255));
  }
  return true;
}

// Appends the image held by `values[begin, begin + size)` to `out`, or counts it as skipped.
void take_image(const json& values, size_t begin, size_t size, PixelEncoding encoding,
                DecodedClass& out) {
  const size_t start = out.pixels.size();
  out.pixels.resize(start + size);
  for (size_t i = 0; i < size; ++i) {
    if (!to_pixel(values[begin + i], encoding, out.pixels[start + i])) {
      out.pixels.resize(start);
      ++out.skipped;
      return;
    }
  }
  ++out.images;
}

// Shuffles the image indices [0, count) with a fixed stream.
std::vector<int64_t> fixed_order(int64_t count, uint64_t stream) {
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::mt19937_64 rng(derive_seed(kSplitSeed, SeedDomain::kFetchSplit, {stream}));
  shuffle(order, rng);
  return order;
}

struct ImageRef {
  const DecodedClass* source;
  int64_t image;
  uint8_t label;
};

LabelledImages gather(const std::vector<ImageRef>& refs, const ClassFilesFormat& format,
                      uint64_t stream) {
  const size_t image_bytes = static_cast<size_t>(format.rows) * format.cols;
  LabelledImages set;
  set.images = {static_cast<int64_t>(refs.size()), format.rows, format.cols, {}};
  set.images.pixels.reserve(refs.size() * image_bytes);
  set.labels.reserve(refs.size());
  // Interleave the classes so no reader meets them sorted.
  for (int64_t i : fixed_order(static_cast<int64_t>(refs.size()), stream)) {
    const ImageRef& ref = refs[i];
    const auto first = ref.source->pixels.begin() + ref.image * static_cast<int64_t>(image_bytes);
    set.images.pixels.insert(set.images.pixels.end(), first, first + image_bytes);
    set.labels.push_back(ref.label);
  }
  return set;
}

}  // namespace

DecodedClass decode_class_file(const fs::path& file, const ClassFilesFormat& format) {
  const json doc = parse_class_file(file);
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_array()) {
    throw DataError(fmt::format("{}: expected an object {{\"data\": [...]}}", file.string()));
  }
  const json& data = doc["data"];
  const size_t image_size = static_cast<size_t>(format.rows) * format.cols;
  DecodedClass decoded;
  decoded.source = file;
  if (format.encoding == PixelEncoding::kArrayPerImage) {
    for (const json& entry : data) {
      if (entry.is_array() && entry.size() == image_size) {
        take_image(entry, 0, image_size, format.encoding, decoded);
      } else {
        ++decoded.skipped;
      }
    }
  } else {
    for (size_t begin = 0; begin + image_size <= data.size(); begin += image_size) {
      take_image(data, begin, image_size, format.encoding, decoded);
    }
    if (data.size() % image_size != 0) ++decoded.skipped;
  }
  return decoded;
}

// The split rule: each class's valid images, in file order, are shuffled with a fixed seed
// (stream = the class index); the first `test_per_class` go to the test set, the rest to
// training. Each set is then shuffled with its own fixed stream to interleave the classes.
ConvertedDataset split_classes(const std::vector<DecodedClass>& classes,
                               const ClassFilesFormat& format) {
  ConvertedDataset converted;
  std::vector<ImageRef> test;
  std::vector<ImageRef> train;
  for (size_t k = 0; k < classes.size(); ++k) {
    const DecodedClass& decoded = classes[k];
    if (decoded.images <= format.test_per_class) {
      throw DataError(fmt::format(
          "{}: holds {} valid images of class {}, but the test set alone takes {} per class",
          decoded.source.string(), decoded.images, k, format.test_per_class));
    }
    const std::vector<int64_t> order = fixed_order(decoded.images, k);
    for (size_t i = 0; i < order.size(); ++i) {
      auto& destination = static_cast<int64_t>(i) < format.test_per_class ? test : train;
      destination.push_back({&decoded, order[i], static_cast<uint8_t>(k)});
    }
    converted.valid += decoded.images;
    converted.skipped += decoded.skipped;
  }
  converted.split.train = gather(train, format, kTrainOrderStream);
  converted.split.test = gather(test, format, kTestOrderStream);
  return converted;
}

}  // namespace hetps::data
