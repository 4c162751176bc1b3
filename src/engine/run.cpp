#include <stdexcept>

#include "engine/engine.h"
#include "engine/sim_engine.h"

namespace hetps::engine {

metrics::Summary run(const config::Config& config, const data::DataSplit& data,
                     model::Learner& learner, RunListener& listener) {
  if (config.engine == "sim") {
    SimEngine engine(config, data, learner, listener);
    return engine.run();
  }
  throw std::invalid_argument("engine: '" + config.engine +
                              "' is not available in this build (available: sim)");
}

}  // namespace hetps::engine
