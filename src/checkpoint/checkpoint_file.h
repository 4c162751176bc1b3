// One checkpoint on disk: a fixed header, then the state as CBOR.
//
//   bytes 0-7    "HETPSCKP"
//   bytes 8-11   format version (little-endian u32): kFormatVersion
//   bytes 12-15  CRC-32 (zlib's) of the payload
//   bytes 16-23  payload length in bytes (little-endian u64)
//   then         the payload: the state's JSON, CBOR-encoded (model-sized arrays as byte
//                strings, state_blob.h)
//
// The checksum is what tells a torn or bit-flipped file from a good one: a run killed while
// writing leaves only a temporary file (the write is atomic), but disks and copies still fail.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hetps::checkpoint {

inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kHeaderBytes = 24;

// The file's bytes for `state`.
std::string encode_checkpoint(const nlohmann::json& state);
// The file's bytes for an encoded state: the header, then `payload`.
std::string frame_checkpoint(std::string_view payload);
// The state in `bytes`; throws CheckpointError, naming `source` (a file name), for bytes that
// are not a whole, intact checkpoint of this format version.
nlohmann::json decode_checkpoint(std::string_view bytes, std::string_view source);

// Writes atomically and durably (temporary file, fsync, rename, fsync of the directory), so
// that `file` holds either its previous contents or the new checkpoint, never a part of one.
// Throws CheckpointError naming the file.
void write_checkpoint(const std::filesystem::path& file, const nlohmann::json& state);
nlohmann::json read_checkpoint(const std::filesystem::path& file);

}  // namespace hetps::checkpoint
