// Reading one TOML value into a typed Config field, checking its type and range, and writing
// it back. A rejected value raises ConfigError naming where it was written, the key, the value
// and what is allowed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "config/rules.h"

namespace hetps::config {

// Where settings were written: a file (each value at its own line) or one command-line flag.
class Source {
 public:
  static Source file(std::string path) { return Source(std::move(path), true); }
  static Source flag(std::string text) { return Source(std::move(text), false); }

  // "exp.toml:4" for a value in a file, the flag's text ("--set train.lr=-1") for a flag.
  std::string where(const toml::node& node) const;

 private:
  Source(std::string name, bool has_lines) : name_(std::move(name)), has_lines_(has_lines) {}
  std::string name_;
  bool has_lines_;
};

// One value being read: where it was written and its full key ("cluster.stragglers[1].slowdown").
struct ValueSite {
  const Source& source;
  std::string key;

  // Throws "<where>: <key> must be <allowed>, got <given>".
  [[noreturn]] void reject(std::string_view allowed, const toml::node& given) const;
};

// `node` written as TOML, numbers in their shortest exact form ("0.1", not "0.10000000000000001").
std::string toml_literal(const toml::node& node);

// An integer is accepted where a number is expected; nothing else converts.
void read_into(double& out, const toml::node& node, const Range& range, const ValueSite& site);
void read_into(int& out, const toml::node& node, const Range& range, const ValueSite& site);
void read_into(int64_t& out, const toml::node& node, const Range& range, const ValueSite& site);
void read_into(uint64_t& out, const toml::node& node, const Range& range, const ValueSite& site);
void read_into(bool& out, const toml::node& node, Unconstrained, const ValueSite& site);
void read_into(std::string& out, const toml::node& node, const Choices& choices,
               const ValueSite& site);
void read_into(std::string& out, const toml::node& node, const RegisteredProtocol& protocol,
               const ValueSite& site);
void read_into(std::string& out, const toml::node& node, const DirectoryName& name,
               const ValueSite& site);
// A non-empty list, every element in `range`.
void read_into(std::vector<double>& out, const toml::node& node, const Range& range,
               const ValueSite& site);

// The TOML value of a field, ready for toml::table::insert_or_assign.
inline double toml_value(double value) { return value; }
inline int64_t toml_value(int value) { return value; }
inline int64_t toml_value(int64_t value) { return value; }
// Seeds are read from TOML integers, so they fit.
inline int64_t toml_value(uint64_t value) { return static_cast<int64_t>(value); }
inline bool toml_value(bool value) { return value; }
inline std::string toml_value(const std::string& value) { return value; }
toml::array toml_value(const std::vector<double>& values);

// Inserts `value` under the dotted `key` of `root`, creating the tables on the way.
template <class Value>
void insert_at(toml::table& root, std::string_view key, Value&& value) {
  toml::table* table = &root;
  for (size_t dot = key.find('.'); dot != std::string_view::npos; dot = key.find('.')) {
    auto [slot, inserted] = table->emplace<toml::table>(key.substr(0, dot));
    table = slot->second.as_table();
    key.remove_prefix(dot + 1);
  }
  table->insert_or_assign(key, std::forward<Value>(value));
}

}  // namespace hetps::config
