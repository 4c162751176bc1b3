// Where a worker's update is while the server waits for it in a round with leaders (Petrel's
// communities, protocol.h "Leaders"). The server does not see a leader gather, so workers tell
// it, and a stall message can then say who waits on whom: the hung worker is the one left
// unexplained.
#pragma once

#include <string>
#include <vector>

namespace hetps::engine {

// Its values travel between mpi ranks (mpi/wire/headers.h).
enum class RoundProgress : int {
  kWithLeader = 0,  // a member's update has reached its leader
  kGathering = 1,   // a leader's own update is computed: it waits for its members'
};

// What a worker itself waits for, in the words of a stall message: a member's update is with
// `leader`; a leader waits for the updates of `members`.
std::string update_with_leader(int leader);
std::string updates_of_members(const std::vector<int>& members);

}  // namespace hetps::engine
