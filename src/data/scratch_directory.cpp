#include "data/scratch_directory.h"

#include <fmt/format.h>
#include <stdlib.h>  // mkdtemp (POSIX)

#include <cerrno>
#include <cstring>
#include <system_error>

#include "data/dataset.h"

namespace hetps::data {

ScratchDirectory::ScratchDirectory(const std::string& prefix) {
  std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw DataError(
        fmt::format("{}: cannot create a scratch directory: {}", pattern, std::strerror(errno)));
  }
  path_ = pattern;
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ignored;  // best effort: a leftover temp directory is not worth a crash
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace hetps::data
