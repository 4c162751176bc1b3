#include "data/load.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "data/idx.h"
#include "data/scratch_directory.h"
#include "data/synthetic.h"

namespace hetps::data {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

std::string error_of(const config::DataConfig& cfg) {
  try {
    load_data(cfg, 1);
  } catch (const DataError& e) {
    return e.what();
  }
  return "no DataError";
}

TEST(DataLoad, SyntheticIsGeneratedFromTheSeedAtTheConfiguredSizes) {
  config::DataConfig cfg;
  cfg.name = "synthetic";
  cfg.synthetic_train = 30;
  cfg.synthetic_test = 20;
  const DataSplit loaded = load_data(cfg, 7);
  const DataSplit expected = make_synthetic(30, 20, 7);
  EXPECT_EQ(loaded.train.size(), 30);
  EXPECT_EQ(loaded.test.size(), 20);
  EXPECT_EQ(loaded.train.inputs, expected.train.inputs);
  EXPECT_EQ(loaded.test.labels, expected.test.labels);
}

TEST(DataLoad, SyntheticSizeBelowOneNamesTheField) {
  config::DataConfig cfg;
  cfg.name = "synthetic";
  cfg.synthetic_test = 0;
  EXPECT_THAT(error_of(cfg), HasSubstr("data.synthetic_test = 0"));
}

TEST(DataLoad, UnknownNameListsTheAllowedOnes) {
  config::DataConfig cfg;
  cfg.name = "cifar10";
  EXPECT_THAT(error_of(cfg), AllOf(HasSubstr("data.name = 'cifar10'"),
                                   HasSubstr("allowed: fashion-mnist, idx, mnist, synthetic")));
}

TEST(DataLoad, MissingIdxFilesSayWhichCommandFetchesThem) {
  ScratchDirectory scratch("hetps-load-test");
  config::DataConfig cfg;
  cfg.name = "mnist";
  cfg.dir = scratch.path().string();
  EXPECT_THAT(error_of(cfg),
              AllOf(HasSubstr((scratch.path() / "mnist" / kTrainImagesFile).string()),
                    HasSubstr("run `hetps data fetch mnist`")));
}

TEST(DataLoad, ADataDirThatIsAFileIsNamedAsSuch) {
  ScratchDirectory scratch("hetps-load-test");
  const fs::path file = scratch.path() / "not-a-folder";
  std::ofstream(file) << "x";
  config::DataConfig cfg;
  cfg.dir = file.string();
  EXPECT_THAT(error_of(cfg),
              AllOf(HasSubstr(file.string() + ": is not a folder"), Not(HasSubstr("not found"))));
  cfg.name = "idx";
  EXPECT_THAT(error_of(cfg), HasSubstr(file.string() + ": is not a folder"));
  // The data set's own folder under data.dir.
  cfg.name = "mnist";
  cfg.dir = scratch.path().string();
  std::ofstream(scratch.path() / "mnist") << "x";
  EXPECT_THAT(error_of(cfg), HasSubstr((scratch.path() / "mnist").string() + ": is not a folder"));
}

// Found by a probe: a run resumed from another directory read its relative data.dir from
// there, and the message gave no hint of it.
TEST(DataLoad, MissingFilesUnderARelativeDataDirNameTheWorkingDirectory) {
  config::DataConfig cfg;
  cfg.dir = "no-such-data-folder";
  EXPECT_THAT(error_of(cfg), HasSubstr("data.dir = 'no-such-data-folder', which is relative: read "
                                       "from the working directory " +
                                       fs::current_path().string() + ")"));
  cfg.name = "idx";
  EXPECT_THAT(error_of(cfg), HasSubstr("which is relative: read from the working directory"));
  cfg.dir = "/no-such-data-folder";
  EXPECT_THAT(error_of(cfg), Not(HasSubstr("relative")));
}

TEST(DataLoad, IdxFilesUnderTheNamedFolderAreScaledToTheUnitInterval) {
  ScratchDirectory scratch("hetps-load-test");
  const fs::path dir = scratch.path() / "fashion-mnist";
  fs::create_directory(dir);
  const LabelledImages train{{2, 1, 2, {0, 255, 51, 102}}, {3, 7}};
  const LabelledImages test{{1, 1, 2, {255, 0}}, {9}};
  write_idx_split(dir, {train, test});

  config::DataConfig cfg;
  cfg.dir = scratch.path().string();
  const DataSplit data = load_data(cfg, 1);
  EXPECT_EQ(data.train.height, 1);
  EXPECT_EQ(data.train.width, 2);
  EXPECT_EQ(data.train.classes, 10);
  EXPECT_EQ(data.train.inputs, (std::vector<float>{0.0f, 1.0f, 0.2f, 0.4f}));
  EXPECT_EQ(data.train.labels, (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(data.test.inputs, (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(data.test.labels, (std::vector<int64_t>{9}));
}

// A data set of one's own: colour images of 2x2 in 5 classes, straight under data.dir.
class OwnIdxData : public ::testing::Test {
 protected:
  OwnIdxData() {
    cfg.name = "idx";
    cfg.dir = scratch.path().string();
    cfg.classes = 5;
  }
  static LabelledImages colour_set(std::vector<uint8_t> labels) {
    LabelledImages set{{static_cast<int64_t>(labels.size()), 2, 2, {}, 3}, labels};
    set.images.pixels.assign(labels.size() * 12, 51);
    return set;
  }

  ScratchDirectory scratch{"hetps-load-test"};
  config::DataConfig cfg;
};

TEST_F(OwnIdxData, IsReadFromTheDirectoryItselfWithItsClassesAndChannels) {
  write_idx_split(scratch.path(), {colour_set({4, 0, 2}), colour_set({3})});
  const DataSplit data = load_data(cfg, 1);
  for (const Dataset* set : {&data.train, &data.test}) {
    EXPECT_EQ(set->channels, 3);
    EXPECT_EQ(set->height, 2);
    EXPECT_EQ(set->width, 2);
    EXPECT_EQ(set->classes, 5);
  }
  EXPECT_EQ(data.train.labels, (std::vector<int64_t>{4, 0, 2}));
  EXPECT_EQ(data.train.inputs, std::vector<float>(36, 0.2f));
  EXPECT_EQ(data.test.labels, (std::vector<int64_t>{3}));
  EXPECT_EQ(data_files(cfg).front(), scratch.path() / kTrainImagesFile);
}

TEST_F(OwnIdxData, ALabelOfNoClassIsNamed) {
  cfg.classes = 3;
  write_idx_split(scratch.path(), {colour_set({0, 2}), colour_set({4})});
  EXPECT_THAT(error_of(cfg), AllOf(HasSubstr((scratch.path() / kTestLabelsFile).string()),
                                   HasSubstr("label 4 at index 0 is out of range, expected 0..2")));
}

TEST_F(OwnIdxData, MissingFilesNameTheDirectoryAndNoFetch) {
  const std::string error = error_of(cfg);
  EXPECT_THAT(error, AllOf(HasSubstr((scratch.path() / kTrainImagesFile).string()),
                           HasSubstr("data.name = 'idx' reads the four IDX files"),
                           HasSubstr("from data.dir = '" + cfg.dir + "' itself")));
  EXPECT_THAT(error, Not(HasSubstr("fetch")));
}

TEST_F(OwnIdxData, TrainAndTestImagesOfDifferentSizesAreNamed) {
  LabelledImages grey{{1, 2, 2, {0, 0, 0, 0}}, {1}};
  write_idx_split(scratch.path(), {colour_set({0}), grey});
  EXPECT_THAT(error_of(cfg), AllOf(HasSubstr((scratch.path() / kTestImagesFile).string() +
                                             ": images of 1x2x2 (channels x rows x cols), but"),
                                   HasSubstr("holds images of 3x2x2")));
}

TEST_F(OwnIdxData, AnEmptySetIsNamed) {
  write_idx_split(scratch.path(), {colour_set({0, 1}), colour_set({})});
  EXPECT_THAT(error_of(cfg), HasSubstr((scratch.path() / kTestImagesFile).string() +
                                       ": holds no images; a data set needs at least one image "
                                       "to train on and one to test on"));
  write_idx_split(scratch.path(), {colour_set({}), colour_set({1})});
  EXPECT_THAT(error_of(cfg),
              HasSubstr((scratch.path() / kTrainImagesFile).string() + ": holds no images"));
}

}  // namespace
}  // namespace hetps::data
