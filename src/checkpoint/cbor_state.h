// State that arrives from outside the process, a checkpoint file or another rank's message, read
// from its CBOR bytes. nlohmann::json's from_cbor alone trusts them in two ways that a hostile or
// broken sender turns into a crash (both found by fuzz/mpi_messages.cpp):
// - it descends one C++ call per level of nesting, so a few kilobytes of nested arrays overflow
//   the stack;
// - it takes text of any bytes, and a later dump() (a log line, an error message) throws on
//   text that is not UTF-8, far from where the bytes came in.
// Real state nests about ten levels deep and its text is ASCII. The check wraps
// nlohmann::detail::json_sax_dom_parser, the builder from_cbor itself uses (3.11; its
// constructor changed in 3.12).
#pragma once

#include <cstdint>
#include <span>

#include <nlohmann/json.hpp>

namespace hetps::checkpoint {

// Deeper than any state hetps writes, and shallow enough for any thread's stack.
inline constexpr int kMaxStateDepth = 64;

// The one CBOR value `bytes` hold. Throws nlohmann::json::exception where from_cbor would (not
// CBOR, truncated, trailing bytes, lengths the bytes cannot hold), and std::invalid_argument for
// nesting deeper than kMaxStateDepth or text that is not UTF-8.
nlohmann::json parse_cbor_state(std::span<const std::uint8_t> bytes);

}  // namespace hetps::checkpoint
