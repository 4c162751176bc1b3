#include "data/idx.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "data/dataset.h"
#include "data/scratch_directory.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

LabelledImages tiny_set() {
  // Three 2×3 images with distinct pixels, labels 0, 9, 4.
  LabelledImages set;
  set.images = {3, 2, 3, {}};
  for (int i = 0; i < 18; ++i) set.images.pixels.push_back(static_cast<uint8_t>(i * 14));
  set.labels = {0, 9, 4};
  return set;
}

void write_raw(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

std::vector<uint8_t> read_raw(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Expects `read` to throw a DataError whose message names `path` and contains `problem`.
template <typename Read>
void expect_error(Read read, const fs::path& path, const std::string& problem) {
  try {
    read();
    ADD_FAILURE() << "no DataError for " << path;
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr(path.string()), HasSubstr(problem)));
  }
}

class IdxFiles : public ::testing::Test {
 protected:
  ScratchDirectory scratch{"hetps-idx-test"};
  fs::path images = scratch.path() / "images";
  fs::path labels = scratch.path() / "labels";
};

TEST_F(IdxFiles, WritesTheStandardBigEndianLayout) {
  write_idx_images(images, tiny_set().images);
  const std::vector<uint8_t> bytes = read_raw(images);
  ASSERT_EQ(bytes.size(), 16u + 18u);
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 16),
            (std::vector<uint8_t>{0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 3}));
  EXPECT_EQ(bytes[16 + 17], 17 * 14);

  write_idx_labels(labels, tiny_set().labels);
  EXPECT_EQ(read_raw(labels), (std::vector<uint8_t>{0, 0, 8, 1, 0, 0, 0, 3, 0, 9, 4}));
}

TEST_F(IdxFiles, RoundTripsImagesAndLabels) {
  write_idx_images(images, tiny_set().images);
  write_idx_labels(labels, tiny_set().labels);
  EXPECT_EQ(read_idx_labelled(images, labels), tiny_set());
}

TEST_F(IdxFiles, RoundTripsASplitUnderTheStandardNames) {
  const IdxSplit split{tiny_set(), tiny_set()};
  write_idx_split(scratch.path(), split);
  for (const char* name : {kTrainImagesFile, kTrainLabelsFile, kTestImagesFile, kTestLabelsFile}) {
    EXPECT_TRUE(fs::is_regular_file(scratch.path() / name)) << name;
  }
  EXPECT_EQ(read_idx_split(scratch.path()), split);
}

// Colour images: 4 dimensions, [count, channels, rows, cols].
TEST_F(IdxFiles, ImagesWithChannelsHaveAFourDimensionalHeader) {
  IdxImages colour{2, 1, 2, {}, 3};
  for (int i = 0; i < 12; ++i) colour.pixels.push_back(static_cast<uint8_t>(i * 20));
  write_idx_images(images, colour);
  const std::vector<uint8_t> bytes = read_raw(images);
  ASSERT_EQ(bytes.size(), 20u + 12u);
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 20),
            (std::vector<uint8_t>{0, 0, 8, 4, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2}));
  EXPECT_EQ(read_idx_images(images), colour);

  std::vector<uint8_t> short_by_one = bytes;
  short_by_one.pop_back();
  expect_error([&] { parse_idx_images(short_by_one, "colour"); }, "colour",
               "header says 2 images of 3x1x2 (12 data bytes) but the file holds 11");
  expect_error(
      [&] {
        parse_idx_images({bytes.begin(), bytes.begin() + 18}, "cut");
      },
      "cut", "truncated: 18 bytes, shorter than the 20-byte header of IDX images");
}

// Found while adding channels: no image, so no data bytes to contradict sides whose product
// is past what a sample's size can hold.
TEST_F(IdxFiles, AnImageOfMoreBytesThanAnIntIsCorrupt) {
  const std::vector<uint8_t> huge = {0, 0, 8, 4, 0, 0, 0, 0, 0, 1,
                                     0, 0, 0, 1, 0, 0, 0, 0, 0, 1};  // 0 images of 65536x65536x1
  expect_error([&] { parse_idx_images(huge, "huge"); }, "huge",
               "image size 65536x65536x1 is over 2147483647 bytes an image");
  const std::vector<uint8_t> past_64_bits = {0,    0,    8,    4,    0,    0,    0,
                                             0,    0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff,
                                             0xff, 0xff, 0x7f, 0xff, 0xff, 0xff};
  expect_error([&] { parse_idx_images(past_64_bits, "past"); }, "past",
               "is over 2147483647 bytes an image");
  const std::vector<uint8_t> no_channel = {0, 0, 8, 4, 0, 0, 0, 0, 0, 0,
                                           0, 0, 0, 0, 0, 1, 0, 0, 0, 1};
  expect_error([&] { parse_idx_images(no_channel, "none"); }, "none",
               "image size 0x1x1 has a zero side");
}

TEST_F(IdxFiles, WritingLeavesNoTemporaryFileBehind) {
  write_idx_images(images, tiny_set().images);
  write_idx_images(images, tiny_set().images);  // replacing an existing file
  EXPECT_EQ(std::distance(fs::directory_iterator(scratch.path()), fs::directory_iterator()), 1);
}

TEST_F(IdxFiles, MissingFileIsNamed) {
  expect_error([&] { read_idx_images(images); }, images, "file not found");
  expect_error([&] { read_idx_labels(labels); }, labels, "file not found");
}

TEST_F(IdxFiles, ShortHeaderIsTruncated) {
  write_raw(images, {0, 0, 8, 3, 0, 0});
  expect_error([&] { read_idx_images(images); }, images, "truncated: 6 bytes");
}

TEST_F(IdxFiles, BadMagicIsNamed) {
  write_idx_labels(images, tiny_set().labels);  // a labels file where images belong
  expect_error([&] { read_idx_images(images); }, images,
               "bad magic number 0x00000801, expected 0x00000803 or 0x00000804 (IDX images)");
  write_idx_images(labels, tiny_set().images);
  expect_error([&] { read_idx_labels(labels); }, labels,
               "bad magic number 0x00000803, expected 0x00000801");
}

TEST_F(IdxFiles, ImageDataShorterThanTheHeaderSaysIsCorrupt) {
  write_idx_images(images, tiny_set().images);
  std::vector<uint8_t> bytes = read_raw(images);
  bytes.pop_back();
  write_raw(images, bytes);
  expect_error([&] { read_idx_images(images); }, images,
               "header says 3 images of 2x3 (18 data bytes) but the file holds 17");
}

TEST_F(IdxFiles, ImageDataLongerThanTheHeaderSaysIsCorrupt) {
  write_idx_images(images, tiny_set().images);
  std::vector<uint8_t> bytes = read_raw(images);
  bytes.insert(bytes.end(), 6, 0);  // one extra image the header does not count
  write_raw(images, bytes);
  expect_error([&] { read_idx_images(images); }, images, "but the file holds 24 data bytes");
}

TEST_F(IdxFiles, ZeroSizedImagesAreCorrupt) {
  write_raw(images, {0, 0, 8, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 28});
  expect_error([&] { read_idx_images(images); }, images, "image size 0x28 has a zero side");
}

// Found by fuzz/idx.cpp: no image, so no data bytes to contradict a side beyond an int.
TEST_F(IdxFiles, ASideLongerThanAnIntIsCorrupt) {
  write_raw(images, {0, 0, 8, 3, 0, 0, 0, 0, 0xf8, 0, 0, 0, 0, 0, 0, 16});
  expect_error([&] { read_idx_images(images); }, images,
               "image size 4160749568x16 has a side longer than 2147483647");
  const std::vector<uint8_t> wide = {0, 0, 8, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0x80, 0, 0, 0};
  expect_error([&] { parse_idx_images(wide, "wide"); }, "wide", "1x2147483648 has a side");
}

TEST_F(IdxFiles, BytesInMemoryAreReadAsAFileIsAndNamedAsGiven) {
  write_idx_images(images, tiny_set().images);
  write_idx_labels(labels, tiny_set().labels);
  EXPECT_EQ(parse_idx_images(read_raw(images), "in memory"), tiny_set().images);
  EXPECT_EQ(parse_idx_labels(read_raw(labels), "in memory"), tiny_set().labels);
  expect_error([&] { parse_idx_labels(read_raw(images), "in memory"); }, "in memory",
               "bad magic number 0x00000803");
}

TEST_F(IdxFiles, LabelCountMismatchIsCorrupt) {
  write_raw(labels, {0, 0, 8, 1, 0, 0, 0, 4, 1, 2});
  expect_error([&] { read_idx_labels(labels); }, labels,
               "header says 4 labels but the file holds 2");
}

TEST_F(IdxFiles, LabelOutOfRangeIsNamedWithItsIndex) {
  write_raw(labels, {0, 0, 8, 1, 0, 0, 0, 3, 1, 10, 2});
  expect_error([&] { read_idx_labels(labels); }, labels,
               "label 10 at index 1 is out of range, expected 0..9");
}

TEST_F(IdxFiles, ImagesAndLabelsOfDifferentLengthsAreNamed) {
  write_idx_images(images, tiny_set().images);
  write_idx_labels(labels, {1, 2});
  expect_error([&] { read_idx_labelled(images, labels); }, images,
               "holds 3 images but " + labels.string() + " holds 2 labels");
}

TEST_F(IdxFiles, DirectoryInPlaceOfAFileIsNamed) {
  fs::create_directory(images);
  expect_error([&] { read_idx_images(images); }, images, "is a directory");
}

}  // namespace
}  // namespace hetps::data
