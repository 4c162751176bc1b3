// Settings that are lists of tables, each element read and written by a schema of its own:
//
//   cluster.stragglers = [{worker = 3, start = 10.0, duration = 5.0, slowdown = 4.0}]
//
//   table_list("cluster.stragglers", TableList<StragglerEpisode>{episode_schema, {"worker", ...}},
//              &Config::cluster, &ClusterConfig::stragglers)
#pragma once

#include <string>
#include <vector>

#include <toml++/toml.h>

#include "config/schema.h"
#include "config/values.h"

namespace hetps::config {

// How the elements of one list are read: `schema` holds their keys; every element must set
// the keys in `required`, and one it leaves out keeps the element type's default.
template <class Element>
struct TableList {
  const Schema<Element>& schema;
  std::vector<std::string> required;
};

// "a list of tables {worker, start, duration, slowdown}"
std::string describe_table_list(const std::vector<std::string>& keys);

// Rejects `table` (the element at `site`) unless it sets every key of `required`.
void require_keys(const toml::table& table, const std::vector<std::string>& required,
                  const ValueSite& site);

template <class Element>
std::vector<Element> read_elements(const toml::node& node, const TableList<Element>& list,
                                   const ValueSite& site) {
  const auto* array = node.as_array();
  if (!array) site.reject(describe_table_list(list.schema.keys_of("")), node);
  std::vector<Element> elements;
  for (size_t i = 0; i < array->size(); ++i) {
    const auto* table = array->get(i)->as_table();
    if (!table) site.reject(describe_table_list(list.schema.keys_of("")), node);
    const ValueSite element_site{site.source, site.key + "[" + std::to_string(i) + "]"};
    require_keys(*table, list.required, element_site);
    read_table(*table, list.schema, elements.emplace_back(),
               TableSite{site.source, element_site.key, {}});
  }
  return elements;
}

template <class Element>
toml::array write_elements(const std::vector<Element>& elements, const Schema<Element>& schema) {
  toml::array array;
  for (const Element& element : elements) {
    toml::table table;
    for (const auto& field : schema.fields()) field.write(element, table);
    array.push_back(std::move(table));
  }
  return array;
}

// Binds `key` to the list of tables the member pointers lead to, as field() binds a value.
template <class Element, class First, class... Rest>
Field<typename MemberOf<First>::Owner> table_list(std::string key, TableList<Element> list,
                                                  First first, Rest... rest) {
  using Owner = typename MemberOf<First>::Owner;
  return {key,
          [=](const toml::node& node, Owner& owner, const ValueSite& site) {
            member(owner, first, rest...) = read_elements(node, list, site);
          },
          [=](const Owner& owner, toml::table& out) {
            insert_at(out, key, write_elements(member(owner, first, rest...), list.schema));
          }};
}

}  // namespace hetps::config
