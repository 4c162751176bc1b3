#include "checkpoint/state_blob.h"

#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "checkpoint/checkpoint_error.h"

namespace hetps::checkpoint {

namespace {

const nlohmann::json::binary_t& bytes_of(const nlohmann::json& blob, std::string_view what) {
  if (!blob.is_binary()) {
    throw CheckpointError(
        fmt::format("{}: expected a byte string, found {}", what, blob.type_name()));
  }
  const auto& bytes = blob.get_binary();
  if (bytes.size() % sizeof(float) != 0) {
    throw CheckpointError(
        fmt::format("{}: {} bytes is not a whole number of floats", what, bytes.size()));
  }
  return bytes;
}

}  // namespace

nlohmann::json floats_blob(std::span<const float> values) {
  std::vector<uint8_t> bytes(values.size_bytes());
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), values.size_bytes());
  return nlohmann::json::binary(std::move(bytes));
}

void read_floats(const nlohmann::json& blob, std::span<float> out, std::string_view what) {
  const auto& bytes = bytes_of(blob, what);
  if (bytes.size() != out.size_bytes()) {
    throw CheckpointError(fmt::format("{}: holds {} floats, expected {}", what,
                                      bytes.size() / sizeof(float), out.size()));
  }
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
}

std::vector<float> floats_from_blob(const nlohmann::json& blob, std::string_view what) {
  std::vector<float> values(bytes_of(blob, what).size() / sizeof(float));
  read_floats(blob, values, what);
  return values;
}

}  // namespace hetps::checkpoint
