#include "data/idx.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <optional>
#include <system_error>

#include "data/dataset.h"
#include "data/file_kind.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;

// magic + one 32-bit size per dimension
constexpr size_t header_bytes(size_t dimensions) { return 4 + 4 * dimensions; }

constexpr size_t kLabelsHeaderBytes = header_bytes(1);

// `name`: the file's (a path converts).
[[noreturn]] void fail(const std::string& name, const std::string& problem) {
  throw DataError(fmt::format("{}: {}", name, problem));
}

std::vector<uint8_t> read_bytes(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) fail(path, "file not found");
  if (const std::string kind = irregular_file_kind(path); !kind.empty()) {
    fail(path, fmt::format("is {}, expected an IDX file", kind));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, fmt::format("cannot open: {}", std::strerror(errno)));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "read error");
  return bytes;
}

uint32_t read_be32(std::span<const uint8_t> bytes, size_t offset) {
  return (uint32_t{bytes[offset]} << 24) | (uint32_t{bytes[offset + 1]} << 16) |
         (uint32_t{bytes[offset + 2]} << 8) | uint32_t{bytes[offset + 3]};
}

void append_be32(std::vector<uint8_t>& bytes, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8)
    bytes.push_back(static_cast<uint8_t>(value >> shift));
}

// The magic number is checked before the rest of the header's length, so a file of the wrong
// kind is reported as such rather than as truncated. Returns the magic number found, one of
// `magics`, whose header is `header_bytes` long.
uint32_t check_header(const std::string& name, std::span<const uint8_t> bytes,
                      std::span<const uint32_t> magics, size_t (*header_bytes)(uint32_t magic),
                      const char* kind) {
  auto truncated = [&](size_t needed) {
    fail(name, fmt::format("truncated: {} bytes, shorter than the {}-byte header of IDX {}",
                           bytes.size(), needed, kind));
  };
  if (bytes.size() < sizeof(uint32_t)) truncated(header_bytes(magics.front()));
  const uint32_t found = read_be32(bytes, 0);
  if (std::find(magics.begin(), magics.end(), found) == magics.end()) {
    fail(name, fmt::format("bad magic number {:#010x}, expected {:#010x} (IDX {})", found,
                           fmt::join(magics, " or "), kind));
  }
  if (bytes.size() < header_bytes(found)) truncated(header_bytes(found));
  return found;
}

constexpr std::array<uint32_t, 2> kImagesMagics = {kIdxImagesMagic, kIdxChannelImagesMagic};
constexpr std::array<uint32_t, 1> kLabelsMagics = {kIdxLabelsMagic};

size_t images_header_bytes(uint32_t magic) {
  return header_bytes(magic == kIdxChannelImagesMagic ? 4 : 3);
}
size_t labels_header_bytes(uint32_t) { return kLabelsHeaderBytes; }

// The product of 32-bit sizes, or nullopt past 64 bits (three of them can get there).
std::optional<uint64_t> product(std::initializer_list<uint32_t> factors) {
  uint64_t result = 1;
  for (const uint32_t factor : factors) {
    if (__builtin_mul_overflow(result, uint64_t{factor}, &result)) return std::nullopt;
  }
  return result;
}

void write_bytes_atomically(const fs::path& path, const std::vector<uint8_t>& bytes) {
  const fs::path tmp = fs::path(path).concat(fmt::format(".tmp.{}", ::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(tmp, fmt::format("cannot create: {}", std::strerror(errno)));
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      fail(tmp, "write failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    fail(path, fmt::format("cannot rename {} into place: {}", tmp.string(), ec.message()));
  }
}

}  // namespace

IdxImages read_idx_images(const fs::path& path) {
  return parse_idx_images(read_bytes(path), path.string());
}

IdxImages parse_idx_images(std::span<const uint8_t> bytes, const std::string& name) {
  const uint32_t magic = check_header(name, bytes, kImagesMagics, images_header_bytes, "images");
  const bool has_channels = magic == kIdxChannelImagesMagic;
  const size_t header = images_header_bytes(magic);
  const uint32_t count = read_be32(bytes, 4);
  const uint32_t channels = has_channels ? read_be32(bytes, 8) : 1;
  const uint32_t rows = read_be32(bytes, header - 8);
  const uint32_t cols = read_be32(bytes, header - 4);
  const std::string size = has_channels ? fmt::format("{}x{}x{}", channels, rows, cols)
                                        : fmt::format("{}x{}", rows, cols);
  if (channels == 0 || rows == 0 || cols == 0)
    fail(name, fmt::format("image size {} has a zero side", size));
  // IdxImages keeps the sides as ints (found by fuzz/idx.cpp: 0 images of 4160749568x16 read
  // as a negative height).
  constexpr uint32_t kMaxSide = std::numeric_limits<int>::max();
  if (channels > kMaxSide || rows > kMaxSide || cols > kMaxSide) {
    fail(name, fmt::format("image size {} has a side longer than {}", size, kMaxSide));
  }
  // Even with no image in the file: a sample's size is an int64 product downstream. Bounded,
  // it keeps the file's size below within 64 bits too.
  const std::optional<uint64_t> image_bytes = product({channels, rows, cols});
  if (!image_bytes || *image_bytes > kMaxSide) {
    fail(name, fmt::format("image size {} is over {} bytes an image", size, kMaxSide));
  }
  const uint64_t data_bytes = bytes.size() - header;
  const uint64_t expected = uint64_t{count} * *image_bytes;
  if (expected != data_bytes) {
    fail(name, fmt::format("header says {} images of {} ({} data bytes) but the file holds {} "
                           "data bytes (truncated or corrupt)",
                           count, size, expected, data_bytes));
  }
  IdxImages images;
  images.count = count;
  images.channels = static_cast<int>(channels);
  images.rows = static_cast<int>(rows);
  images.cols = static_cast<int>(cols);
  images.pixels.assign(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end());
  return images;
}

std::vector<uint8_t> read_idx_labels(const fs::path& path, int classes) {
  return parse_idx_labels(read_bytes(path), path.string(), classes);
}

std::vector<uint8_t> parse_idx_labels(std::span<const uint8_t> bytes, const std::string& name,
                                      int classes) {
  check_header(name, bytes, kLabelsMagics, labels_header_bytes, "labels");
  const uint32_t count = read_be32(bytes, 4);
  const uint64_t data_bytes = bytes.size() - kLabelsHeaderBytes;
  if (data_bytes != count) {
    fail(name, fmt::format("header says {} labels but the file holds {} (truncated or corrupt)",
                           count, data_bytes));
  }
  std::vector<uint8_t> labels(bytes.begin() + kLabelsHeaderBytes, bytes.end());
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] >= classes) {
      fail(name, fmt::format("label {} at index {} is out of range, expected 0..{}", labels[i], i,
                             classes - 1));
    }
  }
  return labels;
}

LabelledImages read_idx_labelled(const fs::path& images_path, const fs::path& labels_path,
                                 int classes) {
  LabelledImages set{read_idx_images(images_path), read_idx_labels(labels_path, classes)};
  if (set.images.count != static_cast<int64_t>(set.labels.size())) {
    fail(images_path, fmt::format("holds {} images but {} holds {} labels", set.images.count,
                                  labels_path.string(), set.labels.size()));
  }
  return set;
}

IdxSplit read_idx_split(const fs::path& dir, int classes) {
  return {read_idx_labelled(dir / kTrainImagesFile, dir / kTrainLabelsFile, classes),
          read_idx_labelled(dir / kTestImagesFile, dir / kTestLabelsFile, classes)};
}

void write_idx_images(const fs::path& path, const IdxImages& images) {
  if (images.channels < 1 || images.pixels.size() != static_cast<size_t>(images.count) *
                                                         images.channels * images.rows *
                                                         images.cols) {
    fail(path, fmt::format("refusing to write {} images of {}x{}x{} from {} pixels", images.count,
                           images.channels, images.rows, images.cols, images.pixels.size()));
  }
  const bool grey = images.channels == 1;
  const uint32_t magic = grey ? kIdxImagesMagic : kIdxChannelImagesMagic;
  std::vector<uint8_t> bytes;
  bytes.reserve(images_header_bytes(magic) + images.pixels.size());
  append_be32(bytes, magic);
  append_be32(bytes, static_cast<uint32_t>(images.count));
  if (!grey) append_be32(bytes, static_cast<uint32_t>(images.channels));
  append_be32(bytes, static_cast<uint32_t>(images.rows));
  append_be32(bytes, static_cast<uint32_t>(images.cols));
  bytes.insert(bytes.end(), images.pixels.begin(), images.pixels.end());
  write_bytes_atomically(path, bytes);
}

void write_idx_labels(const fs::path& path, const std::vector<uint8_t>& labels) {
  std::vector<uint8_t> bytes;
  bytes.reserve(kLabelsHeaderBytes + labels.size());
  append_be32(bytes, kIdxLabelsMagic);
  append_be32(bytes, static_cast<uint32_t>(labels.size()));
  bytes.insert(bytes.end(), labels.begin(), labels.end());
  write_bytes_atomically(path, bytes);
}

void write_idx_split(const fs::path& dir, const IdxSplit& split) {
  write_idx_images(dir / kTrainImagesFile, split.train.images);
  write_idx_labels(dir / kTrainLabelsFile, split.train.labels);
  write_idx_images(dir / kTestImagesFile, split.test.images);
  write_idx_labels(dir / kTestLabelsFile, split.test.labels);
}

}  // namespace hetps::data
