#include "mpi/wire/state_bytes.h"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "checkpoint/cbor_state.h"
#include "mpi/wire/message_error.h"

namespace hetps::mpi {

std::vector<char> encode_state(const nlohmann::json& state) {
  const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(state);
  return {cbor.begin(), cbor.end()};
}

nlohmann::json decode_state(std::span<const char> bytes, int sender) {
  const auto refuse = [&](const std::string& why) {
    return MessageError(sender, fmt::format("a state of {} bytes that is not one CBOR object: {}",
                                            bytes.size(), why));
  };
  const auto* begin = reinterpret_cast<const std::uint8_t*>(bytes.data());
  nlohmann::json state;
  try {
    state = checkpoint::parse_cbor_state({begin, bytes.size()});
  } catch (const nlohmann::json::exception& error) {
    // Every kind: a length the bytes cannot hold is out_of_range, not a parse error (found by
    // fuzz/mpi_messages.cpp).
    throw refuse(error.what());
  } catch (const std::invalid_argument& error) {
    throw refuse(error.what());
  }
  if (!state.is_object()) throw refuse(fmt::format("it holds a {}", state.type_name()));
  return state;
}

}  // namespace hetps::mpi
