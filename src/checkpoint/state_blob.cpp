#include "checkpoint/state_blob.h"

#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "checkpoint/checkpoint_error.h"

namespace hetps::checkpoint {

namespace {

template <typename Value>
const nlohmann::json::binary_t& bytes_of(const nlohmann::json& blob, std::string_view what) {
  if (!blob.is_binary()) {
    throw CheckpointError(
        fmt::format("{}: expected a byte string, found {}", what, blob.type_name()));
  }
  const auto& bytes = blob.get_binary();
  if (bytes.size() % sizeof(Value) != 0) {
    throw CheckpointError(fmt::format("{}: {} bytes is not a whole number of {}s", what,
                                      bytes.size(), sizeof(Value) == 4 ? "float" : "double"));
  }
  return bytes;
}

template <typename Value>
nlohmann::json blob_of(std::span<const Value> values) {
  std::vector<uint8_t> bytes(values.size_bytes());
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), values.size_bytes());
  return nlohmann::json::binary(std::move(bytes));
}

template <typename Value>
std::vector<Value> values_of(const nlohmann::json& blob, std::string_view what) {
  const auto& bytes = bytes_of<Value>(blob, what);
  std::vector<Value> values(bytes.size() / sizeof(Value));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

}  // namespace

nlohmann::json floats_blob(std::span<const float> values) { return blob_of(values); }

void read_floats(const nlohmann::json& blob, std::span<float> out, std::string_view what) {
  const auto& bytes = bytes_of<float>(blob, what);
  if (bytes.size() != out.size_bytes()) {
    throw CheckpointError(fmt::format("{}: holds {} floats, expected {}", what,
                                      bytes.size() / sizeof(float), out.size()));
  }
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
}

std::vector<float> floats_from_blob(const nlohmann::json& blob, std::string_view what) {
  return values_of<float>(blob, what);
}

nlohmann::json doubles_blob(std::span<const double> values) { return blob_of(values); }

std::vector<double> doubles_from_blob(const nlohmann::json& blob, std::string_view what) {
  return values_of<double>(blob, what);
}

}  // namespace hetps::checkpoint
