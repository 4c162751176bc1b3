// What the user asked for: a config file and `--set KEY=VALUE` flags, kept as layers in the
// order given (later wins) with where each came from, so an error names the file and line or
// the flag.
//
//   UserSettings settings;
//   settings.add_file("exp.toml");
//   settings.add_set("cluster.speeds=[1.0, 0.5]");
//   settings.add_set("protocol.name=ssp");   // not valid TOML: taken as the string "ssp"
//   Config config = resolve(settings);       // see resolve.h
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "config/config.h"
#include "config/values.h"

namespace hetps::config {

// A `protocol.<parameter>` setting as given, before the protocol's ParamSpecs check it.
struct GivenParam {
  ParamValue value;
  std::string where;  // for error messages: "exp.toml:7", "--set protocol.staleness=8"
  // The protocol.name of the file that gave it, where the file names one; else empty.
  std::string for_protocol;
};
using GivenParams = std::map<std::string, GivenParam>;

class UserSettings {
 public:
  // Throws ConfigError naming the file when it cannot be read or is not valid TOML (with the
  // line and column of the parse error).
  void add_file(const std::filesystem::path& path);
  // The text of a config file as add_file reads it; errors name `file`.
  void add_text(std::string_view text, const std::string& file);
  // `assignment` is "KEY=VALUE", VALUE a TOML value or else a bare string. Throws ConfigError
  // when there is no '=' or the key is malformed.
  void add_set(std::string_view assignment);
  // Sets `key` to `value` (parsed as in add_set); errors name `origin`.
  void add(std::string_view key, std::string_view value, std::string origin);
  // Sets `key` to the string `value` as is.
  void add_string(std::string_view key, std::string value, std::string origin);

  // Applies every layer in order to `config`, checking keys, types and ranges; returns the
  // protocol parameters given, the last value of each, with the protocol each was given for.
  GivenParams apply_to(Config& config) const;
  // Where `key` (dotted: "protocol.name") was set last ("exp.toml:7", "--set protocol.name=ssp"),
  // or nothing when no layer sets it.
  std::optional<std::string> where_set(std::string_view key) const;

 private:
  struct Layer {
    toml::table table;
    Source source;
  };
  // `value` holds the value under the key "value".
  void add_layer(std::string_view key, toml::table value, std::string origin);

  // Shared and immutable: copies of a UserSettings (one per compared protocol) share the
  // parsed tables, which must not be copied because TOML nodes drop their line on copy.
  std::vector<std::shared_ptr<const Layer>> layers_;
};

}  // namespace hetps::config
