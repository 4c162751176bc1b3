#include "protocol/worker_plan_state.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "support/through_cbor.h"

namespace hetps::protocol {
namespace {

TEST(WorkerPlanStateTest, EveryFieldComesBackThroughACheckpoint) {
  WorkerPlan plan;
  plan.kind = UpdateKind::Delta;
  plan.max_local_steps = 7;
  plan.change_threshold = 0.125;
  plan.keep_ratio = 0.3;
  plan.error_feedback = false;
  plan.send_to = 2;
  plan.gather_from = {4, 5};
  plan.data_shares = {0.1, 0.2, 0.3, 0.4};
  EXPECT_EQ(testing::through_cbor(nlohmann::json(plan)).get<WorkerPlan>(), plan);
  EXPECT_EQ(testing::through_cbor(nlohmann::json(WorkerPlan{})).get<WorkerPlan>(), WorkerPlan{});
}

TEST(WorkerPlanStateTest, AnUnknownKindOrAMissingFieldIsRefused) {
  nlohmann::json saved = WorkerPlan{};
  saved["kind"] = "momentum";
  EXPECT_THROW(saved.get<WorkerPlan>(), std::invalid_argument);
  saved = WorkerPlan{};
  saved.erase("gather_from");
  EXPECT_THROW(saved.get<WorkerPlan>(), nlohmann::json::exception);
}

}  // namespace
}  // namespace hetps::protocol
