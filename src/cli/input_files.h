// The files a config names beside itself (`cluster.trace`, `protocol.policy_file`,
// `protocol.agent_file`, and the data set's files under `data.dir`): a run depends on their
// contents, which its config.toml does not hold. A checkpoint keeps a digest of each, so that a
// resume refuses a run whose files changed since it started.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"

namespace hetps::cli {

// Digests by file path, for configs that name the same files (a comparison's runs, which
// share their data set) to read each once.
using KnownDigests = std::map<std::string, std::string>;

// {"cluster.trace": {"file": path, "fnv1a": 16 hex digits, or "unreadable"}, ...,
// "data file train-images-idx3-ubyte": {...}}: the config's input files, those it names. With
// `known`, a file it holds is not read again, and one read is added to it.
nlohmann::json input_file_digests(const config::Config& config, KnownDigests* known = nullptr);

// What differs between `saved` (input_file_digests at the start) and `now`: "cluster.trace
// (tr/live.csv)" for the first setting whose file changed; empty when none did. A file that
// could not be read then, or cannot now, is not called changed.
std::string changed_input_file(const nlohmann::json& saved, const nlohmann::json& now);

}  // namespace hetps::cli
