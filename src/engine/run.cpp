#include <stdexcept>

#include "engine/engine.h"
#include "engine/sim_engine.h"

namespace hetps::engine {

metrics::Summary run(const config::Config& config, const data::DataSplit& data,
                     const ModelSource& models, RunListener& listener) {
  if (config.engine == "sim") {
    SimEngine engine(config, data, models, listener);
    return engine.run();
  }
  throw std::invalid_argument("engine: '" + config.engine +
                              "' is not available in this build (available: sim)");
}

bool is_primary_process(const config::Config&) { return true; }

}  // namespace hetps::engine
