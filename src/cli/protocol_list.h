// The `--protocols` list of `hetps compare`: comma-separated entries, each a protocol name
// with optional settings of its own, colon-separated:
//   bsp,asp,ssp:staleness=8,sync_switch:online=greedy:stages=2
// An entry names its run (`run.name`), so one protocol may appear with different settings.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/settings.h"

namespace hetps::cli {

struct ProtocolEntry {
  std::string text;      // as given; the run's name is this with any '/' as '_'
  std::string protocol;  // a registered protocol
  std::vector<std::pair<std::string, std::string>> params;  // parameter name, TOML value

  // Adds this entry's protocol, parameters and run name to `settings`, over what it holds.
  void add_to(config::UserSettings& settings) const;
  // Where add_to says its settings were given, in error messages: --protocols entry "ssp:...".
  std::string origin() const;
};

// Throws UsageError naming the entry for an empty or repeated entry, an unknown protocol, a
// setting without '=' or a parameter the protocol does not have. Values are checked when the
// entry's config is resolved.
std::vector<ProtocolEntry> parse_protocol_list(std::string_view list);

}  // namespace hetps::cli
