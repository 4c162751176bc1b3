// One finished run as the report reads it back from its directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "metrics/records.h"

namespace hetps::report {

// An `eval` record of log.jsonl.
struct Evaluation {
  double time = 0;
  int64_t samples = 0;  // applied so far: 0 before any training, when the loss means nothing
  double test_accuracy = 0;
  double train_loss = 0;
};

// Any other record of log.jsonl: a protocol's phase change, regroup, threshold change, an
// engine's stall warning, ...
struct LoggedEvent {
  double time = 0;
  std::string type;
};

// What the run ran on, from its config.toml; empty where the file does not say.
struct RunSetting {
  std::string engine;
  std::string scenario;
  std::string model;
  std::string data;
  int64_t workers = 0;
};

struct RunRecord {
  std::filesystem::path directory;
  std::string entry;  // its row in the report: the run name, qualified when ambiguous
  metrics::Summary summary;
  bool staleness_recorded = false;  // summaries before the histogram existed lack it
  std::vector<Evaluation> evaluations;
  std::vector<LoggedEvent> events;
  RunSetting setting;
};

}  // namespace hetps::report
