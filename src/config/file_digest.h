// What a file the config names holds, in 16 hex digits of FNV-1a (params/fnv1a.h): the same
// file read under another path has the same digest, and an edited one another.
#pragma once

#include <filesystem>
#include <string>

namespace hetps::config {

inline constexpr const char* kUnreadableFile = "unreadable";

// kUnreadableFile when the file cannot be read to its end: missing, a directory, a FIFO, ...
std::string file_digest(const std::filesystem::path& file);

}  // namespace hetps::config
