#include "engine/model_snapshots.h"

namespace hetps::engine {

ModelSnapshot ModelSnapshots::at(std::span<const float> model, int64_t version) {
  if (latest_ && latest_version_ == version) return latest_;
  latest_.reset();  // its buffer comes back to the free list once its readers are done
  std::unique_ptr<std::vector<float>> buffer;
  {
    std::lock_guard lock(free_->mutex);
    if (!free_->buffers.empty()) {
      buffer = std::move(free_->buffers.back());
      free_->buffers.pop_back();
    }
  }
  if (!buffer) buffer = std::make_unique<std::vector<float>>(model.size());
  buffer->assign(model.begin(), model.end());  // no allocation once the capacity suffices
  latest_ = ModelSnapshot(buffer.release(), [free = free_](std::vector<float>* done) {
    std::lock_guard lock(free->mutex);
    free->buffers.emplace_back(done);
  });
  latest_version_ = version;
  return latest_;
}

}  // namespace hetps::engine
