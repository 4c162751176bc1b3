// What the report tests share: the committed fixtures, a scratch directory per test, and
// reading a file whole.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// A fresh directory named after the running test, removed when destroyed.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::path(::testing::TempDir()) /
            ("hetps-report-" + std::string(test->test_suite_name()) + "." + test->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDirectory() { std::filesystem::remove_all(path_); }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

  // A copy of fixture `name` to break or rename, at `<scratch>/<as>`.
  std::filesystem::path copy_fixture(const std::string& name, const std::string& as) const {
    std::filesystem::copy(fixture(name), path_ / as, std::filesystem::copy_options::recursive);
    return path_ / as;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace hetps::report::testing
