#include "config/file_digest.h"

#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "params/fnv1a.h"

namespace hetps::config {

std::string file_digest(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (!in.eof() && !in) return "unreadable";
  return fmt::format("{:016x}", params::fnv1a(bytes));
}

}  // namespace hetps::config
