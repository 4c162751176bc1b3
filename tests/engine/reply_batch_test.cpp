#include "engine/reply_batch.h"

#include <gtest/gtest.h>

#include <vector>

namespace hetps::engine {
namespace {

using protocol::kServer;

std::vector<std::pair<int, int>> workers_and_vias(ReplyBatch& batch) {
  std::vector<std::pair<int, int>> routes;
  for (const auto& route : batch.take()) routes.emplace_back(route.worker, route.via);
  return routes;
}

TEST(ReplyBatchTest, AnsweredLeadersCarryTheirMembersRepliesAfterTheirOwn) {
  ReplyBatch batch(5);
  batch.merged(3, {0, 1});
  // A barrier answers in worker-id order: members before their leader.
  for (int worker : {0, 1, 2, 3}) batch.add(worker, {});
  EXPECT_EQ(workers_and_vias(batch),
            (std::vector<std::pair<int, int>>{{2, kServer}, {3, kServer}, {0, 3}, {1, 3}}));
  EXPECT_TRUE(batch.empty());
}

TEST(ReplyBatchTest, AMemberAnsweredWithoutItsLeaderIsAnsweredByTheServer) {
  ReplyBatch batch(3);
  batch.merged(2, {0, 1});
  batch.add(0, {});
  EXPECT_EQ(workers_and_vias(batch), (std::vector<std::pair<int, int>>{{0, kServer}}));
  // Member 1 is still owed its leader's relay until its reply is sent.
  batch.add(2, {});
  batch.add(1, {});
  EXPECT_EQ(workers_and_vias(batch), (std::vector<std::pair<int, int>>{{2, kServer}, {1, 2}}));
}

TEST(ReplyBatchTest, AReplyWithDataSharesComesFromTheServer) {
  ReplyBatch batch(3);
  batch.merged(2, {0, 1});
  protocol::WorkerPlan with_shares;
  with_shares.data_shares = {0.5, 0.25, 0.25};
  batch.add(0, with_shares);
  batch.add(1, {});
  batch.add(2, {});
  EXPECT_EQ(workers_and_vias(batch),
            (std::vector<std::pair<int, int>>{{0, kServer}, {2, kServer}, {1, 2}}));
}

TEST(ReplyBatchTest, ARelayIsForTheRoundAfterAMergeOnly) {
  ReplyBatch batch(2);
  batch.merged(1, {0});
  batch.add(1, {});
  batch.add(0, {});
  EXPECT_EQ(workers_and_vias(batch), (std::vector<std::pair<int, int>>{{1, kServer}, {0, 1}}));
  // Worker 0's next update went to the server, not through worker 1.
  batch.add(1, {});
  batch.add(0, {});
  EXPECT_EQ(workers_and_vias(batch),
            (std::vector<std::pair<int, int>>{{1, kServer}, {0, kServer}}));
}

// A member that becomes a leader gets its members' list from the server, and nothing is handed
// on by a leader that is itself relayed.
TEST(ReplyBatchTest, NewLeadersAndChainsComeFromTheServer) {
  ReplyBatch batch(4);
  batch.merged(0, {1});
  batch.merged(1, {2});  // an earlier round: worker 1 led worker 2, still unanswered
  batch.add(0, {});
  protocol::WorkerPlan leads;
  leads.gather_from = {3};
  batch.add(1, leads);
  batch.add(2, {});
  EXPECT_EQ(workers_and_vias(batch),
            (std::vector<std::pair<int, int>>{{0, kServer}, {1, kServer}, {2, 1}}));

  batch.merged(0, {1});
  batch.merged(1, {2});
  batch.add(0, {});
  batch.add(1, {});
  batch.add(2, {});
  EXPECT_EQ(workers_and_vias(batch),
            (std::vector<std::pair<int, int>>{{0, kServer}, {2, kServer}, {1, 0}}));
}

}  // namespace
}  // namespace hetps::engine
