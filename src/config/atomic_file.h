// Results a user asked to keep are never half written: the text goes to a temporary file beside
// the target, flushed to disk, then renamed over it (atomic on POSIX file systems), and the
// directory is flushed too: after a crash or a power loss the file is whole, old or new.
#pragma once

#include <filesystem>
#include <string_view>

namespace hetps::config {

// Writes `text` to `file`, creating its directory. Throws std::runtime_error naming `file` (as
// `what`, e.g. "policy file") when it cannot, and leaves no temporary file behind.
void write_file_atomically(const std::filesystem::path& file, std::string_view text,
                           std::string_view what);

// Before long work whose result goes into `dir`: throws std::runtime_error saying why when no
// file can be created in `dir` or, where it does not exist yet, in the nearest directory above it
// that does (where it would be created). The check creates one empty file there and removes it.
void check_can_write_in(const std::filesystem::path& dir);

}  // namespace hetps::config
