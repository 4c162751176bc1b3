// Engines that live outside the libtorch-free, MPI-free core (the mpi engine) plug in here, so
// `engine::run` reaches them by name while the core links none of their dependencies. A binary
// that offers such an engine registers it at start, before any run, e.g.
//   engine::register_engine("mpi", mpi::mpi_engine());
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace hetps::engine {

struct ExternalEngine {
  std::function<metrics::Summary(const config::Config&, const data::DataSplit&, const ModelSource&,
                                 RunListener&, const RunCheckpoints&)>
      run;
  // See engine::is_primary_process.
  std::function<bool(const config::Config&)> is_primary_process;
};

void register_engine(const std::string& name, ExternalEngine engine);
// nullptr when no engine of that name was registered.
const ExternalEngine* find_external_engine(const std::string& name);
std::vector<std::string> external_engine_names();

}  // namespace hetps::engine
