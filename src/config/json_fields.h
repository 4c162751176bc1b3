// Reads the fields of a JSON file hetps wrote (a policy file, a comparison's plan), each
// rejection a ConfigError naming the file and the field's path ("candidates[2].run"), so that
// a file edited by hand or damaged is refused with what was expected, not a library's text.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hetps::config {

class JsonFields {
 public:
  explicit JsonFields(std::string file) : file_(std::move(file)) {}

  // `object`'s `key`, which must be there (`path` names it in messages).
  const nlohmann::json& field(const nlohmann::json& object, const std::string& key,
                              const std::string& path) const;
  // A number in [min, max], or in (min, max] when `open_min`.
  double number(const nlohmann::json& object, const std::string& key, const std::string& path,
                double min, double max, bool open_min = false) const;
  std::string text(const nlohmann::json& object, const std::string& key,
                   const std::string& path) const;
  // An array, or an object; `what` says what it holds ("a list of runs").
  const nlohmann::json& list(const nlohmann::json& object, const std::string& key,
                             const std::string& path, const std::string& what) const;
  void check_object(const nlohmann::json& value, const std::string& path,
                    const std::string& what = "an object") const;

  // Throws "<file>: <path> must be <allowed>, got <given>".
  [[noreturn]] void reject(const std::string& path, const std::string& allowed,
                           const nlohmann::json& given) const;

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

}  // namespace hetps::config
