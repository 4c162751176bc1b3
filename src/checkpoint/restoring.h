// Every part's restore_state names itself in what it refuses: a field missing or of the wrong
// type (nlohmann::json::exception), a value the part's own checks refuse (std::invalid_argument),
// an id that indexes nothing (std::out_of_range from a container's at()) or a part inside it that
// refused (CheckpointError) all come out as one
// CheckpointError prefixed with the part's name, so a nested refusal reads as a path:
//
//   checkpoint::restoring("worker 3", [&] { sampler.restore(...); optimizer.restore_state(...); });
//   // "worker 3: SGD optimizer over keys [0, 12): momentum: holds 10 floats, expected 12"
#pragma once

#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint_error.h"

namespace hetps::checkpoint {

template <typename Restore>
void restoring(std::string_view part, Restore&& restore) {
  try {
    restore();
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(fmt::format("{}: {}", part, e.what()));
  } catch (const std::logic_error& e) {
    throw CheckpointError(fmt::format("{}: {}", part, e.what()));
  } catch (const CheckpointError& e) {
    throw CheckpointError(fmt::format("{}: {}", part, e.what()));
  }
}

// An engine's state names the engine that saved it: another engine's is refused.
inline void expect_engine(const nlohmann::json& state, std::string_view engine) {
  if (state.at("engine") != engine) {
    throw CheckpointError(
        fmt::format("taken on engine {}, not {}", state.at("engine").dump(), engine));
  }
}

}  // namespace hetps::checkpoint
