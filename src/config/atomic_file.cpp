#include "config/atomic_file.h"

#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

namespace hetps::config {

void write_file_atomically(const std::filesystem::path& file, std::string_view text,
                           std::string_view what) {
  std::filesystem::path temporary = file;
  temporary += fmt::format(".tmp-{}", getpid());
  try {
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
    std::ofstream out(temporary);
    out << text;
    out.close();
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", temporary.string()));
    std::filesystem::rename(temporary, file);
  } catch (const std::exception& error) {
    std::error_code ignored;  // already failing: the first error is the one to report
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error(
        fmt::format("cannot write {} {}: {}", what, file.string(), error.what()));
  }
}

}  // namespace hetps::config
