#include "data/synthetic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace hetps::data {
namespace {

// Test accuracy of classifying each test sample by the nearest class mean of the training set.
double nearest_class_mean_accuracy(const DataSplit& data) {
  const int64_t d = data.train.sample_floats();
  std::vector<double> means(static_cast<size_t>(data.train.classes * d), 0.0);
  std::vector<int64_t> counts(static_cast<size_t>(data.train.classes), 0);
  for (int64_t i = 0; i < data.train.size(); ++i) {
    const int64_t c = data.train.labels[i];
    ++counts[c];
    for (int64_t j = 0; j < d; ++j) means[c * d + j] += data.train.sample(i)[j];
  }
  for (int64_t c = 0; c < data.train.classes; ++c) {
    for (int64_t j = 0; j < d; ++j) means[c * d + j] /= static_cast<double>(counts[c]);
  }
  int64_t correct = 0;
  for (int64_t i = 0; i < data.test.size(); ++i) {
    std::vector<double> distance(static_cast<size_t>(data.train.classes), 0.0);
    for (int64_t c = 0; c < data.train.classes; ++c) {
      for (int64_t j = 0; j < d; ++j) {
        const double diff = data.test.sample(i)[j] - means[c * d + j];
        distance[c] += diff * diff;
      }
    }
    const auto nearest = std::min_element(distance.begin(), distance.end()) - distance.begin();
    correct += nearest == data.test.labels[i] ? 1 : 0;
  }
  return static_cast<double>(correct) / static_cast<double>(data.test.size());
}

TEST(Synthetic, HasTheRequestedShapeWithBalancedClassesAndUnitRangeInputs) {
  const DataSplit data = make_synthetic(25, 12, 3);
  EXPECT_EQ(data.train.size(), 25);
  EXPECT_EQ(data.test.size(), 12);
  EXPECT_EQ(data.train.sample_floats(), 28 * 28);
  EXPECT_EQ(data.train.inputs.size(), 25u * 784u);
  EXPECT_EQ(data.train.classes, 10);
  for (int64_t i = 0; i < data.train.size(); ++i) EXPECT_EQ(data.train.labels[i], i % 10);
  const auto [low, high] = std::minmax_element(data.train.inputs.begin(), data.train.inputs.end());
  EXPECT_EQ(*low, 0.0f);
  EXPECT_GT(*high, 0.9f);
  EXPECT_LE(*high, 1.0f);
}

TEST(Synthetic, SameSeedGivesIdenticalBytes) {
  const DataSplit a = make_synthetic(40, 20, 11);
  const DataSplit b = make_synthetic(40, 20, 11);
  EXPECT_EQ(a.train.inputs, b.train.inputs);
  EXPECT_EQ(a.train.labels, b.train.labels);
  EXPECT_EQ(a.test.inputs, b.test.inputs);
}

TEST(Synthetic, DifferentSeedsGiveDifferentData) {
  EXPECT_NE(make_synthetic(10, 1, 1).train.inputs, make_synthetic(10, 1, 2).train.inputs);
}

TEST(Synthetic, ASampleDoesNotDependOnTheSetSize) {
  const DataSplit small = make_synthetic(10, 5, 4);
  const DataSplit large = make_synthetic(30, 5, 4);
  EXPECT_TRUE(
      std::equal(small.train.inputs.begin(), small.train.inputs.end(), large.train.inputs.begin()));
}

TEST(Synthetic, TestSamplesAreFreshDrawsNotCopiesOfTrainingSamples) {
  const DataSplit data = make_synthetic(20, 20, 5);
  for (int64_t i = 0; i < data.test.size(); ++i) {
    for (int64_t j = 0; j < data.train.size(); ++j) {
      EXPECT_FALSE(std::equal(data.test.sample(i), data.test.sample(i) + 784, data.train.sample(j)))
          << "test " << i << " equals train " << j;
    }
  }
}

TEST(Synthetic, IsLearnableButNotTrivial) {
  for (uint64_t seed : {1, 2}) {
    const double accuracy = nearest_class_mean_accuracy(make_synthetic(1000, 500, seed));
    EXPECT_GT(accuracy, 0.70) << "seed " << seed;
    EXPECT_LT(accuracy, 0.97) << "seed " << seed;
  }
}

}  // namespace
}  // namespace hetps::data
