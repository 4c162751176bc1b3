// Whole numbers read back from a saved state. nlohmann's get<int>() converts whatever number it
// finds, and a float outside int's range (a corrupt checkpoint, a hostile rank's state) is
// undefined behaviour, not an error (found by fuzz/checkpoint.cpp). A state that hetps wrote
// holds each of them as a CBOR integer; anything else is refused.
//
//   next_id_ = checkpoint::integer<int>(state.at("next_id"));
//   live_ = checkpoint::integers<std::set<int>>(state.at("live"));
//   gathering_ = checkpoint::integers<std::vector<std::vector<int>>>(state.at("gathering"));
//   closed_ = checkpoint::integer_or<int64_t>(state, "rounds_closed", 0);  // absent: older state
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
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
  // Only a number is shown: anything else may be a model-sized byte string.
  throw CheckpointError(fmt::format("expected an integer from {} to {}, got {}",
                                    std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                                    saved.is_number() ? saved.dump() : saved.type_name()));
}

// The field `key` of `state` as integer() reads it, or `absent` where the state has no such
// field (one saved before the field was).
template <std::integral T>
T integer_or(const nlohmann::json& state, const char* key, T absent) {
  return state.contains(key) ? integer<T>(state.at(key)) : absent;
}

namespace detail {
template <typename T>
T saved_element(const nlohmann::json& saved);

inline const nlohmann::json::array_t& saved_array(const nlohmann::json& saved) {
  if (!saved.is_array()) {
    throw CheckpointError(fmt::format("expected an array, got {}", saved.type_name()));
  }
  return saved.get_ref<const nlohmann::json::array_t&>();
}
}  // namespace detail

// A vector or set of integers, or of such vectors, saved as an array. (Their elements may also
// be numbers or bools, read as nlohmann reads them.)
template <typename Container>
Container integers(const nlohmann::json& saved) {
  Container values;
  for (const nlohmann::json& element : detail::saved_array(saved)) {
    values.insert(values.end(), detail::saved_element<typename Container::value_type>(element));
  }
  return values;
}

// A map keyed by integers, saved as nlohmann writes one: an array of [key, value] pairs.
template <std::integral Key, typename Value>
std::map<Key, Value> integer_map(const nlohmann::json& saved) {
  std::map<Key, Value> values;
  for (const nlohmann::json& pair : detail::saved_array(saved)) {
    if (!pair.is_array() || pair.size() != 2) {
      throw CheckpointError("expected a map saved as [key, value] pairs");
    }
    values[integer<Key>(pair[0])] = detail::saved_element<Value>(pair[1]);
  }
  return values;
}

// The id of `ids` that is no worker of a run of `workers` (the lowest if negative, else the
// highest), or nothing when all of them are.
inline std::optional<int> id_outside(const std::set<int>& ids, int workers) {
  if (ids.empty()) return std::nullopt;
  if (*ids.begin() < 0) return *ids.begin();
  if (*ids.rbegin() >= workers) return *ids.rbegin();
  return std::nullopt;
}

namespace detail {
template <typename T>
T saved_element(const nlohmann::json& saved) {
  if constexpr (std::same_as<T, bool> || std::floating_point<T>) {
    return saved.get<T>();
  } else if constexpr (std::integral<T>) {
    return integer<T>(saved);
  } else {
    return integers<T>(saved);
  }
}
}  // namespace detail

}  // namespace hetps::checkpoint
