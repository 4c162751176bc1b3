// The model a run trains is built for its data set: the images' channels and size, and its
// class count (a data set of one's own: data.name = "idx").
#include "model/model_source.h"

#include <gtest/gtest.h>

#include "config/config.h"
#include "data/dataset.h"
#include "model/learner.h"

namespace hetps::model {
namespace {

size_t parameters_of(const std::string& name, const InputShape& input, int classes) {
  return make_learner(name, input, classes, 1)->layout().size();
}

TEST(ModelSource, BuildsTheModelForTheDataSetsShapeAndClasses) {
  data::Dataset colour;
  colour.channels = 3;
  colour.height = 12;
  colour.width = 12;
  colour.classes = 3;
  for (const char* name : {"mlp", "lenet"}) {
    config::Config config;
    config.model.name = name;
    const size_t built = model_source(config, colour).make_learner()->layout().size();
    EXPECT_EQ(built, parameters_of(name, {3, 12, 12}, 3)) << name;
    EXPECT_NE(built, parameters_of(name, {3, 12, 12}, 10)) << name;
    EXPECT_NE(built, parameters_of(name, {1, 12, 12}, 3)) << name;
  }
}

}  // namespace
}  // namespace hetps::model
