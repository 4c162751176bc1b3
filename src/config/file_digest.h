// What a file the config names holds, in 16 hex digits of FNV-1a (params/fnv1a.h): the same
// file read under another path has the same digest, and an edited one another.
#pragma once

#include <filesystem>
#include <string>

namespace hetps::config {

// "unreadable" when the file cannot be read to its end.
std::string file_digest(const std::filesystem::path& file);

}  // namespace hetps::config
