#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "server/thread_team.h"

namespace hetps::server {
namespace {

TEST(ThreadTeamTest, EveryMemberRunsEveryJobOnceBeforeRunReturns) {
  ThreadTeam team(3);
  ASSERT_EQ(team.size(), 3);
  std::vector<int> runs(3, 0);  // one slot per member: no two threads write the same one
  for (int job = 1; job <= 50; ++job) {
    team.run([&](int member) { ++runs[static_cast<size_t>(member)]; });
    EXPECT_EQ(runs, (std::vector<int>{job, job, job}));
  }
}

TEST(ThreadTeamTest, MemberZeroIsTheCallerAndATeamOfOneStartsNoThread) {
  const auto caller = std::this_thread::get_id();
  for (int size : {1, 2}) {
    ThreadTeam team(size);
    std::vector<std::thread::id> ids(static_cast<size_t>(size));
    team.run([&](int member) { ids[static_cast<size_t>(member)] = std::this_thread::get_id(); });
    EXPECT_EQ(ids[0], caller);
    if (size == 2) {
      EXPECT_NE(ids[1], caller);
    }
  }
}

TEST(ThreadTeamTest, RejectsATeamOfNoOne) { EXPECT_THROW(ThreadTeam(0), std::invalid_argument); }

}  // namespace
}  // namespace hetps::server
