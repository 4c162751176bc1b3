#include "worker/merge_updates.h"

#include <algorithm>
#include <stdexcept>

#include "server/sgd_optimizer.h"

namespace hetps::worker {
namespace {

protocol::UpdateInfo merged_info(const std::vector<Contribution>& contributions,
                                 const protocol::UpdateInfo& leader, int64_t total_samples) {
  protocol::UpdateInfo merged = leader;
  merged.steps = 0;
  merged.samples = total_samples;
  merged.train_loss = 0;
  merged.members.clear();
  merged.merged_step_seconds = {leader.compute_seconds / std::max(leader.steps, 1)};
  for (const auto& [info, update] : contributions) {
    merged.steps += info.steps;
    merged.train_loss +=
        info.train_loss * static_cast<double>(info.samples) / static_cast<double>(total_samples);
    merged.compute_seconds = std::max(merged.compute_seconds, info.compute_seconds);
    if (info.worker != leader.worker) {
      merged.members.push_back(info.worker);
      merged.merged_step_seconds.push_back(info.compute_seconds / std::max(info.steps, 1));
    }
  }
  return merged;
}

}  // namespace

protocol::UpdateInfo merge_updates(std::vector<Contribution> contributions, std::span<float> out) {
  int64_t total = 0;
  for (const auto& contribution : contributions) total += contribution.info.samples;
  if (contributions.empty() || total <= 0) {
    throw std::invalid_argument("merge_updates: nothing to merge");
  }
  const protocol::UpdateInfo leader = contributions.front().info;
  std::ranges::sort(contributions, {}, [](const Contribution& c) { return c.info.worker; });
  std::vector<const float*> updates;
  std::vector<double> weights;
  for (const auto& contribution : contributions) {
    updates.push_back(contribution.update);
    weights.push_back(static_cast<double>(contribution.info.samples) / static_cast<double>(total));
  }
  server::weighted_sum(updates, weights, {0, out.size()}, out.data());
  return merged_info(contributions, leader, total);
}

}  // namespace hetps::worker
