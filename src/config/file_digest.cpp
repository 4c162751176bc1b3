#include "config/file_digest.h"

#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "data/file_kind.h"
#include "params/fnv1a.h"

namespace hetps::config {

std::string file_digest(const std::filesystem::path& file) {
  // Not read: a FIFO would block, and /dev/zero never end. Its reader says what it is.
  if (!data::irregular_file_kind(file).empty()) return kUnreadableFile;
  std::ifstream in(file, std::ios::binary);
  std::string bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    // libstdc++'s stream buffer throws where read() fails (EISDIR: a directory opens).
    return kUnreadableFile;
  }
  if (!in.eof() && !in) return kUnreadableFile;
  return fmt::format("{:016x}", params::fnv1a(bytes));
}

}  // namespace hetps::config
