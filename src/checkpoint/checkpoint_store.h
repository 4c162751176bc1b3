// A run's checkpoints: `<run dir>/checkpoints/checkpoint-<n>.ckpt`, numbered from 1 in the order
// they were taken. The newest `keep` are kept, so that a checkpoint found broken on resume
// still has an older one to fall back on.
//
//   CheckpointStore store(run_dir / "checkpoints", config.run.checkpoint_keep);
//   store.save(state);                       // checkpoint-1.ckpt, checkpoint-2.ckpt, ...
//   auto found = store.load_latest(warn);    // the newest one that reads back whole
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hetps::checkpoint {

// The n of a checkpoint's file name "checkpoint-<n>.ckpt" (n >= 1); nothing for any other name
// (temporary files included).
std::optional<int64_t> checkpoint_number(const std::filesystem::path& file);

class CheckpointStore {
 public:
  // `keep` ≥ 1: how many of the newest checkpoints survive a save.
  CheckpointStore(std::filesystem::path dir, int keep);

  const std::filesystem::path& dir() const { return dir_; }

  // Writes the next checkpoint, then deletes those beyond the newest `keep` and the temporary
  // files of writes a killed process left unfinished. Returns its file.
  // Throws CheckpointError naming the file when it cannot be written.
  std::filesystem::path save(const nlohmann::json& state);

  struct Found {
    std::filesystem::path file;
    nlohmann::json state;
  };
  // The newest checkpoint that reads back whole. Each newer one that does not, with an older
  // one left to try, is named to `refused` with the reason (CheckpointError's message) and
  // skipped. Throws CheckpointError
  // when there is no checkpoint at all, or none that reads, naming the directory and every
  // refusal.
  Found load_latest(const std::function<void(const std::string& refusal)>& refused) const;

  // The checkpoint files present, oldest first.
  std::vector<std::filesystem::path> files() const;

 private:
  void remove_unfinished_writes() const;

  std::filesystem::path dir_;
  int keep_;
  // The number the next save takes: one past the highest present, so that a resumed run
  // never overwrites the checkpoint it resumed from.
  std::optional<int64_t> next_number_;
};

}  // namespace hetps::checkpoint
