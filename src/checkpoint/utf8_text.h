// CBOR, unlike JSON text, can carry strings of any bytes; nlohmann::json takes them in from_cbor
// but throws when it later writes one out (dump(): a log line, an error message), far from where
// the bytes came in. State read from a file or another rank is therefore checked once, as it
// arrives (found by fuzz/mpi_messages.cpp: a worker state with a key of bytes 0xff...).
#pragma once

#include <nlohmann/json.hpp>

namespace hetps::checkpoint {

// Throws nlohmann::json::type_error (316, as dump() would) when a string or an object's key
// anywhere in `value` is not UTF-8. Byte strings are not text and are not looked at, so a
// model-sized state is checked without being written out.
void check_text_is_utf8(const nlohmann::json& value);

}  // namespace hetps::checkpoint
