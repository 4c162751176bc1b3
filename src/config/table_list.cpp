#include "config/table_list.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace hetps::config {

std::string describe_table_list(const std::vector<std::string>& keys) {
  return fmt::format("a list of tables {{{}}}", fmt::join(keys, ", "));
}

void require_keys(const toml::table& table, const std::vector<std::string>& required,
                  const ValueSite& site) {
  for (const std::string& key : required) {
    if (!table.contains(key)) site.reject(fmt::format("a table that sets {}", key), table);
  }
}

}  // namespace hetps::config
