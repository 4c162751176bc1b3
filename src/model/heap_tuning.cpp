#include "model/heap_tuning.h"

#include <cstdlib>
#include <string_view>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace hetps::model {
namespace {

constexpr int kMiB = 1 << 20;

bool user_tunes_malloc() {
  for (const char* name : kMallocEnvironment) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    if (std::string_view(name) != "GLIBC_TUNABLES") return true;
    if (std::string_view(value).find("glibc.malloc.") != std::string_view::npos) return true;
  }
  return false;
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
