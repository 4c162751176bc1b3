// What a path a user names as an input file is, when it is no regular file.
#pragma once

#include <filesystem>
#include <string>

namespace hetps::data {

// "a directory", "a FIFO", "a device" or "a socket" for what is there but is no regular file;
// empty for a regular file, and for a missing one, which its reader reports as such. Input
// files are read whole, some more than once (a trace for its digest, a policy file by each of
// compare's entries and by tune's check of --out): a FIFO would block or be found empty the
// second time, and /dev/zero would never end.
std::string irregular_file_kind(const std::filesystem::path& path);

}  // namespace hetps::data
