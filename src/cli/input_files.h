// The files a config names beside itself (`cluster.trace`, `protocol.policy_file`,
// `protocol.agent_file`, and the data set's files under `data.dir`): a run depends on their
// contents, which its config.toml does not hold. A checkpoint keeps a digest of each, so that a
// resume refuses a run whose files changed since it started.
#pragma once

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace hetps::cli {

// {"cluster.trace": {"file": path, "fnv1a": 16 hex digits, or "unreadable"}, ...,
// "data file train-images-idx3-ubyte": {...}}: the config's input files, those it names.
nlohmann::json input_file_digests(const config::Config& config);

// What differs between `saved` (input_file_digests at the start) and `now`: "cluster.trace
// (tr/live.csv)" for the first setting whose file changed; empty when none did.
std::string changed_input_file(const nlohmann::json& saved, const nlohmann::json& now);

}  // namespace hetps::cli
