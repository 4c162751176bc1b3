// Immutable copies of the global model for workers that compute while the server moves on.
// Every worker that pulls the same version shares one copy (a BSP round copies the model once,
// not once per worker), and a copy's buffer is reused once its last reader lets go of it, so
// the steady state allocates nothing. Used from the server thread; readers on any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

namespace hetps::engine {

using ModelSnapshot = std::shared_ptr<const std::vector<float>>;

class ModelSnapshots {
 public:
  // The model as of `version` (`model` is its current contents).
  ModelSnapshot at(std::span<const float> model, int64_t version);

 private:
  // Buffers whose readers have all let go; shared with the snapshots' deleters, which may run
  // on any thread and after this object is gone.
  struct FreeBuffers {
    std::mutex mutex;
    std::vector<std::unique_ptr<std::vector<float>>> buffers;
  };
  std::shared_ptr<FreeBuffers> free_ = std::make_shared<FreeBuffers>();
  ModelSnapshot latest_;
  int64_t latest_version_ = -1;
};

}  // namespace hetps::engine
