#include "model/heap_tuning.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace hetps::model {
namespace {

#ifdef __GLIBC__
// Starts each test with no malloc settings in the environment and puts back the ones it found.
class HeapTuning : public ::testing::Test {
 protected:
  HeapTuning() {
    for (const char* name : kMallocEnvironment) {
      const char* value = std::getenv(name);
      saved_.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
      unsetenv(name);
    }
  }
  ~HeapTuning() override {
    for (const auto& [name, value] : saved_) {
      if (value) {
        setenv(name, value->c_str(), 1);
      } else {
        unsetenv(name);
      }
    }
  }

 private:
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

TEST_F(HeapTuning, TunesGlibcMallocWhenTheUserDidNot) {
  EXPECT_TRUE(keep_freed_memory_for_reuse());
}

TEST_F(HeapTuning, LeavesAUsersMallocVariableAlone) {
  setenv("MALLOC_TOP_PAD_", "1048576", 1);
  EXPECT_FALSE(keep_freed_memory_for_reuse());
}

TEST_F(HeapTuning, LeavesAUsersMallocTunablesAlone) {
  setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1048576", 1);
  EXPECT_FALSE(keep_freed_memory_for_reuse());
  setenv("GLIBC_TUNABLES", "glibc.pthread.rseq=0", 1);  // not malloc's
  EXPECT_TRUE(keep_freed_memory_for_reuse());
}
#endif

}  // namespace
}  // namespace hetps::model
