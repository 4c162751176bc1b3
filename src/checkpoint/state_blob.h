// Model-sized float arrays (parameters, optimizer buffers, updates in flight) and long double
// arrays (the activity timeline) go into a checkpoint's state as byte strings, which its CBOR
// encoding stores as they are: as JSON numbers they would take three times the space and a parse
// per value. Saved and restored on the same kind of machine (the floats' bytes in the host's
// order).
//
//   state["model"] = floats_blob(model);
//   read_floats(state.at("model"), model, "the server's model");
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetps::checkpoint {

nlohmann::json floats_blob(std::span<const float> values);

// Copies the blob into `out`. Throws CheckpointError naming `what` when `blob` is not a byte
// string or does not hold exactly out.size() floats.
void read_floats(const nlohmann::json& blob, std::span<float> out, std::string_view what);
// The blob's floats, however many it holds (a whole number of them, else CheckpointError).
std::vector<float> floats_from_blob(const nlohmann::json& blob, std::string_view what);

nlohmann::json doubles_blob(std::span<const double> values);
std::vector<double> doubles_from_blob(const nlohmann::json& blob, std::string_view what);

}  // namespace hetps::checkpoint
