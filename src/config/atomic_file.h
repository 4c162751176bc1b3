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

}  // namespace hetps::config
