// The bytes of an IDX file, read as images and as labels (data/idx.h). Each reader either
// returns what the rest of hetps indexes by (count × channels × rows × cols pixels, an image
// whose size fits an int, labels below the classes) or refuses the bytes with a DataError;
// anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <span>

#include "data/dataset.h"
#include "data/idx.h"

namespace {

constexpr int kClasses = 10;

void read_images(std::span<const uint8_t> bytes) {
  const hetps::data::IdxImages images = hetps::data::parse_idx_images(bytes, "fuzz-images");
  if (images.count < 0 || images.channels <= 0 || images.rows <= 0 || images.cols <= 0) {
    std::abort();
  }
  // A sample's size, which hetps computes as an int64 (data::Dataset::sample_floats).
  const uint64_t image = static_cast<uint64_t>(images.channels) *
                         static_cast<uint64_t>(images.rows) * static_cast<uint64_t>(images.cols);
  if (image > static_cast<uint64_t>(std::numeric_limits<int>::max()) ||
      images.pixels.size() != static_cast<uint64_t>(images.count) * image) {
    std::abort();
  }
}

void read_labels(std::span<const uint8_t> bytes) {
  for (const uint8_t label : hetps::data::parse_idx_labels(bytes, "fuzz-labels", kClasses)) {
    if (label >= kClasses) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  try {
    read_images(bytes);
  } catch (const hetps::data::DataError&) {
  }
  try {
    read_labels(bytes);
  } catch (const hetps::data::DataError&) {
  }
  return 0;
}
