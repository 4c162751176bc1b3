#include "mpi/rank_failures.h"

#include <new>
#include <stdexcept>
#include <string>

#include "engine/engine.h"
#include "engine/shard_failures.h"
#include "mpi/rank_layout.h"
#include "mpi/session.h"

namespace hetps::mpi {

void run_naming_this_rank(const std::function<void()>& job) {
  const auto named = [](const std::exception& error) {
    return this_process() + ": " + error.what();
  };
  try {
    job();
  } catch (const JobShapeError& error) {
    if (world_rank() != 0) return;
    throw std::invalid_argument(named(error));
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(named(error));
  } catch (const engine::StallError& error) {
    throw engine::StallError(named(error));
  } catch (const engine::ShardCrashed& crash) {
    throw engine::ShardCrashed(crash.shard(), crash.time(), named(crash));
  } catch (const std::bad_alloc&) {  // whose own text, "std::bad_alloc", names no cause
    throw std::runtime_error(this_process() + ": out of memory");
  } catch (const std::exception& error) {
    throw std::runtime_error(named(error));
  }
}

}  // namespace hetps::mpi
