// Whole numbers read back from a saved state. nlohmann's get<int>() converts whatever number it
// finds, and a float outside int's range (a corrupt checkpoint, a hostile rank's state) is
// undefined behaviour, not an error (found by fuzz/checkpoint.cpp). A state that hetps wrote
// holds each of them as a CBOR integer; anything else is refused.
//
//   next_id_ = checkpoint::integer<int>(state.at("next_id"));
//   live_ = checkpoint::integers<std::set<int>>(state.at("live"));
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint_error.h"

namespace hetps::checkpoint {

// Throws CheckpointError unless `saved` is an integer that T holds.
template <std::integral T>
T integer(const nlohmann::json& saved) {
  if (saved.is_number_unsigned()) {
    const auto value = saved.get<std::uint64_t>();
    if (std::in_range<T>(value)) return static_cast<T>(value);
  } else if (saved.is_number_integer()) {
    const auto value = saved.get<std::int64_t>();
    if (std::in_range<T>(value)) return static_cast<T>(value);
  }
  throw CheckpointError(fmt::format("expected an integer from {} to {}, got {}",
                                    std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                                    saved.is_primitive() ? saved.dump() : saved.type_name()));
}

// A vector or set of such integers, saved as an array.
template <typename Container>
Container integers(const nlohmann::json& saved) {
  if (!saved.is_array()) {
    throw CheckpointError(fmt::format("expected an array of integers, got {}", saved.type_name()));
  }
  Container values;
  for (const nlohmann::json& element : saved) {
    values.insert(values.end(), integer<typename Container::value_type>(element));
  }
  return values;
}

// A map from integers to integers, saved as nlohmann writes one: an array of [key, value] pairs.
template <std::integral Key, std::integral Value>
std::map<Key, Value> integer_map(const nlohmann::json& saved) {
  std::map<Key, Value> values;
  for (const nlohmann::json& pair : saved.get_ref<const nlohmann::json::array_t&>()) {
    if (!pair.is_array() || pair.size() != 2) {
      throw CheckpointError("expected a map saved as [key, value] pairs");
    }
    values[integer<Key>(pair[0])] = integer<Value>(pair[1]);
  }
  return values;
}

}  // namespace hetps::checkpoint
