#include "worker/merge_updates.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "server/parameter_server.h"

namespace hetps::worker {
namespace {

Contribution contribution(int worker, int64_t samples, const std::vector<float>& update) {
  protocol::UpdateInfo info;
  info.worker = worker;
  info.samples = samples;
  info.steps = 1;
  return {info, update.data()};
}

TEST(MergeUpdatesTest, WeighsEachContributionByItsSamples) {
  const std::vector<float> a = {1, 2, 3};
  const std::vector<float> b = {5, 6, 7};
  std::vector<float> out(3);
  merge_updates({contribution(0, 16, a), contribution(3, 48, b)}, out);
  EXPECT_EQ(out, (std::vector<float>{4, 5, 6}));  // a/4 + 3b/4
}

TEST(MergeUpdatesTest, TheMergedInfoIsTheLeadersWithTheRoundsTotals) {
  const std::vector<float> update = {1};
  std::vector<float> out(1);
  std::vector<Contribution> round = {contribution(2, 30, update), contribution(4, 10, update),
                                     contribution(0, 10, update)};
  round[0].info.train_loss = 1.0;
  round[0].info.compute_seconds = 0.5;
  round[0].info.base_version = 7;
  round[1].info.train_loss = 2.0;
  round[1].info.compute_seconds = 2.0;
  round[2].info.train_loss = 4.0;
  round[2].info.compute_seconds = 0.9;
  round[2].info.steps = 3;
  const protocol::UpdateInfo merged = merge_updates(round, out);
  EXPECT_EQ(merged.worker, 2);
  EXPECT_EQ(merged.base_version, 7);
  EXPECT_EQ(merged.samples, 50);
  EXPECT_EQ(merged.steps, 5);
  EXPECT_DOUBLE_EQ(merged.train_loss, 0.6 * 1.0 + 0.2 * 2.0 + 0.2 * 4.0);
  EXPECT_EQ(merged.compute_seconds, 2.0);
  EXPECT_EQ(merged.members, (std::vector<int>{0, 4}));
  // The leader's step, then its members' in `members`' order.
  EXPECT_EQ(merged.merged_step_seconds, (std::vector<double>{0.5, 0.3, 2.0}));
}

// The leader merges into its own buffer: every block is read before it is written, across the
// block boundary too.
TEST(MergeUpdatesTest, MayWriteIntoAContributionsBuffer) {
  const size_t size = 5000;
  std::vector<float> own(size, 2.0f);
  const std::vector<float> member(size, 4.0f);
  merge_updates({contribution(1, 10, own), contribution(2, 10, member)}, own);
  EXPECT_EQ(own, std::vector<float>(size, 3.0f));
}

// With equal batches the merge is the mean a BSP round takes at the server, bit for bit: a
// community of everyone with leader aggregation ends on BSP's parameters.
TEST(MergeUpdatesTest, EqualBatchesGiveTheBitsOfABspRoundsMean) {
  const size_t size = 2500;
  std::vector<std::vector<float>> gradients(3, std::vector<float>(size));
  for (size_t k = 0; k < gradients.size(); ++k) {
    for (size_t i = 0; i < size; ++i) gradients[k][i] = 0.1f * static_cast<float>(k + 1) / (i + 3);
  }
  params::ParamLayout layout;
  layout.add("w", {static_cast<int64_t>(size)});
  server::ServerOptions options;
  options.momentum = 0.9;
  const std::vector<float> initial(size, 0.5f);
  server::ParameterServer round(layout, initial, options);
  round.apply(
      {protocol::UpdateKind::Gradient, {0, 1, 2}, {1.0 / 3, 1.0 / 3, 1.0 / 3}},
      std::vector<const float*>{gradients[0].data(), gradients[1].data(), gradients[2].data()}, 0);

  std::vector<float> merged(size);
  merge_updates({contribution(1, 32, gradients[1]), contribution(0, 32, gradients[0]),
                 contribution(2, 32, gradients[2])},
                merged);
  server::ParameterServer leader(layout, initial, options);
  leader.apply({protocol::UpdateKind::Gradient, {0}, {1.0}},
               std::vector<const float*>{merged.data()}, 0);
  EXPECT_EQ(std::vector<float>(leader.model().begin(), leader.model().end()),
            std::vector<float>(round.model().begin(), round.model().end()));
}

TEST(MergeUpdatesTest, RefusesAnEmptyMerge) {
  std::vector<float> out(2);
  EXPECT_THROW(merge_updates({}, out), std::invalid_argument);
}

}  // namespace
}  // namespace hetps::worker
