#include "data/file_kind.h"

namespace hetps::data {

std::string irregular_file_kind(const std::filesystem::path& path) {
  std::error_code ignored;
  switch (std::filesystem::status(path, ignored).type()) {
    case std::filesystem::file_type::directory:
      return "a directory";
    case std::filesystem::file_type::fifo:
      return "a FIFO";
    case std::filesystem::file_type::block:
    case std::filesystem::file_type::character:
      return "a device";
    case std::filesystem::file_type::socket:
      return "a socket";
    default:
      return "";
  }
}

}  // namespace hetps::data
