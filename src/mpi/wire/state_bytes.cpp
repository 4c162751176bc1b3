#include "mpi/wire/state_bytes.h"

#include <fmt/format.h>

#include "checkpoint/utf8_text.h"
#include "mpi/wire/message_error.h"

namespace hetps::mpi {

std::vector<char> encode_state(const nlohmann::json& state) {
  const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(state);
  return {cbor.begin(), cbor.end()};
}

nlohmann::json decode_state(std::span<const char> bytes, int sender) {
  const auto refuse = [&] {
    return MessageError(
        sender,
        fmt::format("a state of {} bytes that is not one CBOR object of UTF-8 text", bytes.size()));
  };
  const auto* begin = reinterpret_cast<const std::uint8_t*>(bytes.data());
  nlohmann::json state;
  try {
    state = nlohmann::json::from_cbor(begin, begin + bytes.size());
    checkpoint::check_text_is_utf8(state);
  } catch (const nlohmann::json::exception&) {
    // Every kind: a length the bytes cannot hold is out_of_range, not a parse error, and text
    // that is not UTF-8 is a type_error (both found by fuzz/mpi_messages.cpp).
    throw refuse();
  }
  if (!state.is_object()) throw refuse();
  return state;
}

}  // namespace hetps::mpi
