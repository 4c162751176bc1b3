// Writes a resolved Config as TOML that resolve() reads back to the same Config: the run
// directory's config.toml, re-loadable with `hetps train --config`.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <toml++/toml.h>

#include "config/config.h"

namespace hetps::config {

// Every key but `run.name` when it is the default (the protocol's name); the protocol's
// parameters under [protocol].
toml::table to_toml(const Config& config);

// Every key to_toml writes, dotted ("cluster.random_stragglers.rate_per_min"), with its value as
// TOML text, in the order of config_schema() and the protocol's parameters after
// `protocol.name`.
std::vector<std::pair<std::string, std::string>> dotted_values(const Config& config);

// The same as a document, keys in the order of config_schema() (not alphabetical), numbers in
// their shortest exact form.
std::string to_toml_text(const Config& config);

}  // namespace hetps::config
