#include "checkpoint/checkpoint_file.h"

#include <zlib.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/cbor_state.h"
#include "checkpoint/checkpoint_error.h"
#include "config/atomic_file.h"

namespace hetps::checkpoint {

namespace {

constexpr std::string_view kMagic = "HETPSCKP";

template <typename Integer>
void put_little_endian(std::string& out, Integer value) {
  for (size_t byte = 0; byte < sizeof(Integer); ++byte) {
    out.push_back(static_cast<char>((value >> (8 * byte)) & 0xFF));
  }
}

template <typename Integer>
Integer get_little_endian(std::string_view bytes, size_t at) {
  Integer value = 0;
  for (size_t byte = 0; byte < sizeof(Integer); ++byte) {
    value |= static_cast<Integer>(static_cast<unsigned char>(bytes[at + byte])) << (8 * byte);
  }
  return value;
}

uint32_t crc32_of(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes at most a uInt at a time.
  constexpr size_t kChunk = std::numeric_limits<uInt>::max();
  for (size_t at = 0; at < bytes.size(); at += kChunk) {
    const size_t length = std::min(kChunk, bytes.size() - at);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(length));
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

std::string encode_checkpoint(const nlohmann::json& state) {
  std::string payload;
  nlohmann::json::to_cbor(state, payload);
  return frame_checkpoint(payload);
}

std::string frame_checkpoint(std::string_view payload) {
  std::string out(kMagic);
  put_little_endian<uint32_t>(out, kFormatVersion);
  put_little_endian<uint32_t>(out, crc32_of(payload));
  put_little_endian<uint64_t>(out, payload.size());
  out += payload;
  return out;
}

nlohmann::json decode_checkpoint(std::string_view bytes, std::string_view source) {
  if (bytes.size() < kHeaderBytes) {
    throw CheckpointError(
        fmt::format("checkpoint {}: truncated: {} bytes, fewer than its {}-byte header", source,
                    bytes.size(), kHeaderBytes));
  }
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    throw CheckpointError(fmt::format(
        "checkpoint {}: not a hetps checkpoint (it does not start with \"{}\")", source, kMagic));
  }
  const auto version = get_little_endian<uint32_t>(bytes, 8);
  if (version != kFormatVersion) {
    throw CheckpointError(
        fmt::format("checkpoint {}: format version {}, but this hetps reads version {}", source,
                    version, kFormatVersion));
  }
  const auto expected_crc = get_little_endian<uint32_t>(bytes, 12);
  const auto length = get_little_endian<uint64_t>(bytes, 16);
  const std::string_view payload = bytes.substr(kHeaderBytes);
  if (payload.size() != length) {
    throw CheckpointError(fmt::format(
        "checkpoint {}: {}: its header announces {} bytes of state, the file holds {}", source,
        payload.size() < length ? "truncated" : "trailing bytes", length, payload.size()));
  }
  if (crc32_of(payload) != expected_crc) {
    throw CheckpointError(fmt::format(
        "checkpoint {}: corrupt: the state's checksum does not match its header", source));
  }
  try {
    return parse_cbor_state(
        {reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()});
  } catch (const nlohmann::json::exception& error) {
    // The checksum matched: the writer itself was wrong.
    throw CheckpointError(
        fmt::format("checkpoint {}: its state is not valid CBOR: {}", source, error.what()));
  } catch (const std::invalid_argument& error) {
    throw CheckpointError(
        fmt::format("checkpoint {}: its state is not valid: {}", source, error.what()));
  }
}

void write_checkpoint(const std::filesystem::path& file, const nlohmann::json& state) {
  try {
    config::write_file_atomically(file, encode_checkpoint(state), "checkpoint");
  } catch (const std::runtime_error& error) {
    throw CheckpointError(error.what());
  }
}

nlohmann::json read_checkpoint(const std::filesystem::path& file) {
  // A directory opens, and reads as 0 bytes: "truncated" would mislead.
  std::error_code ignored;
  if (std::filesystem::is_directory(file, ignored)) {
    throw CheckpointError(
        fmt::format("checkpoint {}: a directory; expected a checkpoint file", file.string()));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CheckpointError(fmt::format("checkpoint {}: cannot be opened", file.string()));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw CheckpointError(fmt::format("checkpoint {}: cannot be read", file.string()));
  return decode_checkpoint(bytes.view(), file.string());
}

}  // namespace hetps::checkpoint
