// The learning-rate schedule, indexed by samples processed across all workers, so every
// protocol sees the same learning rate after the same amount of data (spec/baselines.md).
#pragma once

#include <cstdint>
#include <string>

namespace hetps::server {

struct LrScheduleOptions {
  double base_lr = 0.05;
  std::string kind = "constant";  // constant | step | cosine
  int64_t warmup_samples = 0;     // linear warm-up to base_lr over this many samples
  int64_t step_samples = 0;       // step: ×gamma every step_samples (0: never)
  double step_gamma = 0.1;
  int64_t total_samples = 0;  // cosine: decays to 0 at total_samples
};

class LrSchedule {
 public:
  explicit LrSchedule(LrScheduleOptions options);
  double at(int64_t samples) const;

 private:
  LrScheduleOptions options_;
};

}  // namespace hetps::server
