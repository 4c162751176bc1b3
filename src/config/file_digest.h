// What a file the config names holds, in 16 hex digits of FNV-1a (params/fnv1a.h): the same
// file read under another path has the same digest, and an edited one another.
#pragma once

#include <filesystem>
#include <string>

namespace hetps::config {

inline constexpr const char* kUnreadableFile = "unreadable";

// kUnreadableFile when the file cannot be read to its end: missing, a directory, ...
std::string file_digest(const std::filesystem::path& file);

// What `file` is when it is there but neither a regular file nor a directory ("a FIFO", "a
// device", "a socket"); empty otherwise. An input file is read whole, and some more than once
// (a trace for its digest, a policy file by each of compare's entries and by tune's check of
// --out): a FIFO would block or be found empty the second time, and /dev/zero never end.
std::string special_file_kind(const std::filesystem::path& file);

}  // namespace hetps::config
