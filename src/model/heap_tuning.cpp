#include "model/heap_tuning.h"

#include <cstdlib>
#include <cstring>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace hetps::model {
namespace {

constexpr int kMiB = 1 << 20;

bool user_tunes_malloc() {
  for (const char* name : {"MALLOC_TOP_PAD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_",
                           "MALLOC_MMAP_MAX_", "MALLOC_ARENA_MAX"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr;
}

}  // namespace

bool keep_freed_memory_for_reuse() {
#ifdef __GLIBC__
  if (user_tunes_malloc()) return false;
  // Blocks below 64 MiB come from the heap, not from a fresh mapping each; the heap grows with
  // 64 MiB to spare and gives memory back only past 256 MiB free at its top. The cost: up to that
  // much freed memory stays with the process, small beside a training run's data set.
  return mallopt(M_MMAP_THRESHOLD, 64 * kMiB) == 1 && mallopt(M_TOP_PAD, 64 * kMiB) == 1 &&
         mallopt(M_TRIM_THRESHOLD, 256 * kMiB) == 1;
#else
  return false;
#endif
}

}  // namespace hetps::model
