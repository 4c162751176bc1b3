// The keys of a configuration table, each bound to the struct member it sets: one list drives
// reading (with type and range checks), writing back, and the "unknown key" message that
// lists the keys a table has.
//
//   field("train.lr", Range::above(0), &Config::train, &TrainConfig::lr)
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "config/config.h"
#include "config/values.h"

namespace hetps::config {

template <class Owner>
struct Field {
  std::string key;  // dotted, relative to Owner: "train.lr"
  std::function<void(const toml::node& node, Owner& owner, const ValueSite& site)> read;
  std::function<void(const Owner& owner, toml::table& out)> write;
};

template <class Member>
struct MemberOf;
template <class T, class Class>
struct MemberOf<T Class::*> {
  using Owner = Class;
};

// The member of `owner` that the member pointers lead to, one pointer per nesting level:
// member(config, &Config::train, &TrainConfig::lr) is config.train.lr.
template <class Owner, class First, class... Rest>
auto& member(Owner& owner, First first, Rest... rest) {
  if constexpr (sizeof...(rest) == 0) {
    return owner.*first;
  } else {
    return member(owner.*first, rest...);
  }
}

// Binds `key` to the member the pointers lead to, checked by `rule` (a Range, Choices or
// Unconstrained, as read_into takes for the member's type).
template <class Rule, class First, class... Rest>
Field<typename MemberOf<First>::Owner> field(std::string key, Rule rule, First first,
                                             Rest... rest) {
  using Owner = typename MemberOf<First>::Owner;
  return {key,
          [=](const toml::node& node, Owner& owner, const ValueSite& site) {
            read_into(member(owner, first, rest...), node, rule, site);
          },
          [=](const Owner& owner, toml::table& out) {
            insert_at(out, key, toml_value(member(owner, first, rest...)));
          }};
}

template <class Owner>
class Schema {
 public:
  explicit Schema(std::vector<Field<Owner>> fields) : fields_(std::move(fields)) {}

  const std::vector<Field<Owner>>& fields() const { return fields_; }

  const Field<Owner>* find(std::string_view key) const {
    for (const auto& field : fields_) {
      if (field.key == key) return &field;
    }
    return nullptr;
  }

  // Whether `key` names a table of keys ("cluster", "cluster.random_stragglers").
  bool is_table(std::string_view key) const { return !keys_of(key).empty(); }

  // The keys directly inside table `table` ("" for the top level), in schema order.
  std::vector<std::string> keys_of(std::string_view table) const {
    const std::string prefix = table.empty() ? "" : std::string(table) + ".";
    std::vector<std::string> keys;
    for (const auto& field : fields_) {
      if (!field.key.starts_with(prefix)) continue;
      std::string key = field.key.substr(prefix.size());
      key = key.substr(0, key.find('.'));
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
    return keys;
  }

 private:
  std::vector<Field<Owner>> fields_;
};

// Offered the keys a schema does not know ("protocol.staleness"); returns whether it took it.
using ClaimKey = std::function<bool(const std::string& key, const toml::node& node)>;

// How to read one table: where it was written and the full key it sits under, for messages.
struct TableSite {
  const Source& source;
  std::string prefix;  // "" at the top level; "cluster.stragglers[1]" for a list element
  ClaimKey claim;      // may be empty
};

[[noreturn]] void reject_unknown_key(const TableSite& site, const std::string& key,
                                     const std::string& table,
                                     const std::vector<std::string>& known, const toml::node& node);

// Reads every key of `table` (which sits at `key_of_table` in the schema) into `owner`.
template <class Owner>
void read_table(const toml::table& table, const Schema<Owner>& schema, Owner& owner,
                const TableSite& site, const std::string& key_of_table = "") {
  for (const auto& [name, node] : table) {
    const std::string key = key_of_table.empty() ? std::string(name.str())
                                                 : key_of_table + "." + std::string(name.str());
    const std::string full_key = site.prefix.empty() ? key : site.prefix + "." + key;
    if (const Field<Owner>* field = schema.find(key)) {
      field->read(node, owner, ValueSite{site.source, full_key});
    } else if (schema.is_table(key)) {
      const auto* inner = node.as_table();
      if (!inner) ValueSite{site.source, full_key}.reject("a table", node);
      read_table(*inner, schema, owner, site, key);
    } else if (!site.claim || !site.claim(key, node)) {
      reject_unknown_key(site, full_key, key_of_table, schema.keys_of(key_of_table), node);
    }
  }
}

// The keys of a run's configuration.
const Schema<Config>& config_schema();

}  // namespace hetps::config
