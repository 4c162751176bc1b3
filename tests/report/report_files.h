// What the report tests share: the committed fixtures, a scratch directory per test, and
// reading a file whole.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/scratch_dir.h"

namespace hetps::report::testing {

// Beside this header, found through the compiler's path of it: the core test binary is not
// told where the sources are.
inline std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(__FILE__).parent_path() / "fixtures" / name;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines of a file, without their line breaks.
inline std::vector<std::string> lines_of(const std::filesystem::path& file) {
  std::vector<std::string> lines;
  std::istringstream in(read_text(file));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

// A scratch directory that also takes copies of the fixtures.
class ScratchDirectory : public ::hetps::testing::ScratchDir {
 public:
  // A copy of fixture `name` to break or rename, at `<scratch>/<as>`.
  std::filesystem::path copy_fixture(const std::string& name, const std::string& as) const {
    std::filesystem::copy(fixture(name), path() / as, std::filesystem::copy_options::recursive);
    return path() / as;
  }
};

}  // namespace hetps::report::testing
