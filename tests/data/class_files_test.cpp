#include "data/class_files.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "data/dataset.h"
#include "data/scratch_directory.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

// Tiny 2×2 images keep the fixtures readable.
const ClassFilesFormat kPerImage{PixelEncoding::kArrayPerImage, 2, 2, 2};
const ClassFilesFormat kFlat{PixelEncoding::kFlatUnitInterval, 2, 2, 2};

class FetchConvert : public ::testing::Test {
 protected:
  fs::path write_json(const std::string& name, const std::string& text) {
    const fs::path path = scratch.path() / name;
    std::ofstream(path) << text;
    return path;
  }

  // A class file of `images` well-formed images; image i of class k has every pixel 10k + i.
  fs::path write_class(int k, int images) {
    std::string data;
    for (int i = 0; i < images; ++i) {
      const int v = 10 * k + i;
      data += fmt::format("{}[{},{},{},{}]", i ? "," : "", v, v, v, v);
    }
    return write_json(fmt::format("{}.json", k), "{\"data\":[" + data + "]}");
  }

  std::string error_of(const fs::path& file, const ClassFilesFormat& format) {
    try {
      decode_class_file(file, format);
    } catch (const DataError& e) {
      return e.what();
    }
    return "no DataError";
  }

  ScratchDirectory scratch{"hetps-convert-test"};
};

TEST_F(FetchConvert, PerImageArraysSkipAndCountMalformedEntries) {
  const fs::path file =
      write_json("0.json",
                 R"({"data": [[0, 1, 2, 3], [], [4, 5, 6], [7, 8, 9, 256], [10, 11, 12, "x"],
                   [-1, 0, 0, 0], [1.5, 0, 0, 0], 5, [255, 254, 253, 252.0]]})");
  const DecodedClass decoded = decode_class_file(file, kPerImage);
  EXPECT_EQ(decoded.images, 2);
  EXPECT_EQ(decoded.skipped, 7);
  EXPECT_EQ(decoded.pixels, (std::vector<uint8_t>{0, 1, 2, 3, 255, 254, 253, 252}));
  EXPECT_EQ(decoded.source, file);
}

TEST_F(FetchConvert, FlatUnitIntervalPixelsBecomeBytesAndAPartialImageIsSkipped) {
  const fs::path file =
      write_json("0.json", R"({"data": [0, 1, 0.5, 0.2,  1, 1, 1, 1,  0, 0, 2, 0,  0.1, 0.9]})");
  const DecodedClass decoded = decode_class_file(file, kFlat);
  EXPECT_EQ(decoded.images, 2);
  EXPECT_EQ(decoded.skipped, 2);  // the image holding 2, and the two trailing values
  EXPECT_EQ(decoded.pixels, (std::vector<uint8_t>{0, 255, 128, 51, 255, 255, 255, 255}));
}

TEST_F(FetchConvert, UnreadableFilesAreNamed) {
  const fs::path missing = scratch.path() / "7.json";
  EXPECT_THAT(error_of(missing, kPerImage),
              AllOf(HasSubstr(missing.string()), HasSubstr("not found")));
  const fs::path broken = write_json("1.json", R"({"data": [[0, 1)");
  EXPECT_THAT(error_of(broken, kPerImage),
              AllOf(HasSubstr(broken.string()), HasSubstr("not valid JSON")));
  const fs::path wrong = write_json("2.json", R"({"images": []})");
  EXPECT_THAT(error_of(wrong, kPerImage),
              AllOf(HasSubstr(wrong.string()), HasSubstr(R"(expected an object {"data": [...]})")));
}

TEST_F(FetchConvert, SplitIsClassBalancedAndCoversEveryImageOnce) {
  const std::vector<int> sizes = {5, 3, 4};
  std::vector<DecodedClass> classes;
  for (int k = 0; k < 3; ++k)
    classes.push_back(decode_class_file(write_class(k, sizes[k]), kPerImage));
  classes[1].skipped = 1;  // as if one entry had been malformed
  const ConvertedDataset converted = split_classes(classes, kPerImage);

  EXPECT_EQ(converted.valid, 12);
  EXPECT_EQ(converted.skipped, 1);
  const IdxSplit& split = converted.split;
  EXPECT_EQ(split.test.images.count, 6);
  EXPECT_EQ(split.train.images.count, 6);
  EXPECT_EQ(split.train.images.rows, 2);
  EXPECT_EQ(split.train.images.cols, 2);

  std::map<int, int> test_per_class;
  std::set<int> seen;
  for (const LabelledImages* set : {&split.train, &split.test}) {
    for (size_t i = 0; i < set->labels.size(); ++i) {
      const int value = set->images.pixels[4 * i];
      EXPECT_EQ(value / 10, set->labels[i]) << "image moved away from its label";
      EXPECT_TRUE(seen.insert(value).second) << "image " << value << " appears twice";
      if (set == &split.test) ++test_per_class[set->labels[i]];
    }
  }
  EXPECT_EQ(seen.size(), 12u);
  EXPECT_EQ(test_per_class, (std::map<int, int>{{0, 2}, {1, 2}, {2, 2}}));
}

TEST_F(FetchConvert, SplitIsTheSameEveryTime) {
  std::vector<DecodedClass> classes;
  for (int k = 0; k < 2; ++k) classes.push_back(decode_class_file(write_class(k, 6), kPerImage));
  EXPECT_EQ(split_classes(classes, kPerImage).split, split_classes(classes, kPerImage).split);
}

TEST_F(FetchConvert, AClassWithNoImageLeftForTrainingIsNamed) {
  std::vector<DecodedClass> classes = {decode_class_file(write_class(0, 3), kPerImage),
                                       decode_class_file(write_class(1, 2), kPerImage)};
  try {
    split_classes(classes, kPerImage);
    ADD_FAILURE() << "no DataError";
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr((scratch.path() / "1.json").string()),
                                HasSubstr("holds 2 valid images of class 1"),
                                HasSubstr("takes 2 per class")));
  }
}

}  // namespace
}  // namespace hetps::data
