// Helpers for the config tests: resolving from --set flags and files, and catching the error.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <string_view>

#include "config/error.h"
#include "config/resolve.h"
#include "config/settings.h"

namespace hetps::config::testing {

// A TOML file holding `text`, named after the running test; removed when destroyed.
class ConfigFile {
 public:
  explicit ConfigFile(std::string_view text) {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::path(::testing::TempDir()) /
            (std::string(test->test_suite_name()) + "." + test->name() + ".toml");
    std::ofstream(path_) << text;
  }
  ~ConfigFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline UserSettings settings_from(std::initializer_list<std::string_view> sets,
                                  const ConfigFile* file = nullptr) {
  UserSettings settings;
  if (file) settings.add_file(file->path());
  for (std::string_view set : sets) settings.add_set(set);
  return settings;
}

inline Config resolve_sets(std::initializer_list<std::string_view> sets,
                           const ConfigFile* file = nullptr) {
  return resolve(settings_from(sets, file));
}

// The message of the ConfigError that resolving these settings raises; "" when none.
inline std::string resolve_error(std::initializer_list<std::string_view> sets,
                                 const ConfigFile* file = nullptr) {
  try {
    resolve_sets(sets, file);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

}  // namespace hetps::config::testing
