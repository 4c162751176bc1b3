#include "data/share_cut.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace hetps::data {
namespace {

void check_data_shares(std::span<const double> shares, int64_t total) {
  if (shares.empty()) {
    throw std::invalid_argument("data shares: none given; there must be one per worker");
  }
  for (size_t w = 0; w < shares.size(); ++w) {
    if (!std::isfinite(shares[w]) || shares[w] < 0) {
      throw std::invalid_argument(
          fmt::format("data shares: worker {}'s share is {}; a share must be finite and at least 0",
                      w, shares[w]));
    }
  }
  const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
  if (std::abs(sum - 1) > 1e-9) {
    throw std::invalid_argument(
        fmt::format("data shares: they sum to {}; they must sum to 1 (within 1e-9)", sum));
  }
  if (total < static_cast<int64_t>(shares.size())) {
    throw std::invalid_argument(
        fmt::format("data shares: {} samples for {} workers; every worker needs at least one",
                    total, shares.size()));
  }
}

// Moves `leaving` of `shard`'s samples, at positions spread evenly over it, to the end of
// `given`. Needs leaving < shard.size(), so the positions (2j + 1)·size / (2·leaving) are
// distinct and inside the shard.
void give_spread_samples(std::vector<int64_t>& shard, size_t leaving, std::vector<int64_t>& given) {
  std::vector<int64_t> staying;
  staying.reserve(shard.size() - leaving);
  size_t next = 0;
  for (size_t position = 0; position < shard.size(); ++position) {
    if (next < leaving && position == (2 * next + 1) * shard.size() / (2 * leaving)) {
      given.push_back(shard[position]);
      ++next;
    } else {
      staying.push_back(shard[position]);
    }
  }
  shard = std::move(staying);
}

}  // namespace

std::vector<int64_t> share_sizes(std::span<const double> shares, int64_t total) {
  check_data_shares(shares, total);
  const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
  std::vector<int64_t> sizes;
  std::vector<double> remainders;
  int64_t left_over = total;
  for (const double share : shares) {
    const double quota = share / sum * static_cast<double>(total);
    sizes.push_back(static_cast<int64_t>(std::floor(quota)));
    remainders.push_back(quota - std::floor(quota));
    left_over -= sizes.back();
  }
  // Each floor is more than its quota minus 1 and the quotas add up to `total`, so fewer samples
  // than workers are left over (at most as many, through the rounding of the quotas).
  std::vector<size_t> by_remainder(shares.size());
  std::iota(by_remainder.begin(), by_remainder.end(), size_t{0});
  std::ranges::stable_sort(by_remainder, std::greater<>(), [&](size_t w) { return remainders[w]; });
  for (int64_t k = 0; k < left_over; ++k) ++sizes[by_remainder[static_cast<size_t>(k)]];
  for (int64_t& size : sizes) {
    if (size > 0) continue;
    // With total >= workers, an empty shard implies one of two or more.
    --*std::ranges::max_element(sizes);
    size = 1;
  }
  return sizes;
}

std::vector<std::vector<int64_t>> cut_to_shares(const std::vector<std::vector<int64_t>>& shards,
                                                std::span<const double> shares) {
  if (shares.size() != shards.size()) {
    throw std::invalid_argument(
        fmt::format("data shares: {} shares for {} workers; there must be one per worker",
                    shares.size(), shards.size()));
  }
  int64_t total = 0;
  for (const auto& shard : shards) total += static_cast<int64_t>(shard.size());
  const std::vector<int64_t> sizes = share_sizes(shares, total);

  std::vector<std::vector<int64_t>> cut = shards;
  std::vector<int64_t> given;
  for (size_t w = 0; w < cut.size(); ++w) {
    const auto size = static_cast<size_t>(sizes[w]);
    if (cut[w].size() > size) give_spread_samples(cut[w], cut[w].size() - size, given);
  }
  auto next_given = given.begin();
  for (size_t w = 0; w < cut.size(); ++w) {
    const auto size = static_cast<size_t>(sizes[w]);
    if (cut[w].size() >= size) continue;
    const auto received = static_cast<std::ptrdiff_t>(size - cut[w].size());
    cut[w].insert(cut[w].end(), next_given, next_given + received);
    next_given += received;
    std::ranges::sort(cut[w]);
  }
  return cut;
}

}  // namespace hetps::data
