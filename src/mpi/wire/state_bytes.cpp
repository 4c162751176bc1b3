#include "mpi/wire/state_bytes.h"

#include <fmt/format.h>

#include "mpi/wire/message_error.h"

namespace hetps::mpi {

std::vector<char> encode_state(const nlohmann::json& state) {
  const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(state);
  return {cbor.begin(), cbor.end()};
}

nlohmann::json decode_state(std::span<const char> bytes, int sender) {
  const auto* begin = reinterpret_cast<const std::uint8_t*>(bytes.data());
  nlohmann::json state = nlohmann::json::from_cbor(begin, begin + bytes.size(), /*strict=*/true,
                                                   /*allow_exceptions=*/false);
  if (state.is_discarded() || !state.is_object()) {
    throw MessageError(
        sender, fmt::format("a state of {} bytes that is not one CBOR object", bytes.size()));
  }
  return state;
}

}  // namespace hetps::mpi
