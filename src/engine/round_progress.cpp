#include "engine/round_progress.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace hetps::engine {

std::string update_with_leader(int leader) {
  return fmt::format("its leader worker {}, which has its update", leader);
}

std::string updates_of_members(const std::vector<int>& members) {
  const char* plural = members.size() > 1 ? "s" : "";
  return fmt::format("the update of its member{} worker{} {}", plural, plural,
                     fmt::join(members, ", "));
}

}  // namespace hetps::engine
