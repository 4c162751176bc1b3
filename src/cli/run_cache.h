// Finished runs kept by what they ran: a run's directory is named by the hash of its resolved
// config, so a run asked for again (a search repeated, or extended) is found instead of rerun.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "config/config.h"

namespace hetps::cli {

// 16 hex digits of a 64-bit FNV-1a hash of the config's canonical text (config::to_toml_text:
// every key of the whole resolved config, seed and protocol parameters included, in a fixed
// order, numbers in their shortest exact form), and of the contents of the files it names
// (input_files.h), when it names any. The hetps version is not part of it: after an upgrade
// that changes training, rerun rather than reuse.
std::string config_hash(const config::Config& config);

// The final test accuracy (summary.json's `final_accuracy`) of the finished run of `config` in
// `dir`, or nullopt when `dir` holds no summary.json (a run directory gets one only once
// complete). Throws UsageError (a file under --runs to remove) naming the file when it is
// there but unreadable, or
// when the run's config.toml is not `config`'s (edited, or another run copied in): its
// accuracy is not that of the config the directory is named for.
std::optional<double> cached_final_accuracy(const std::filesystem::path& dir,
                                            const config::Config& config);

}  // namespace hetps::cli
