#include "cli/mpi_launch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "cli/usage_error.h"

namespace hetps::cli {
namespace {

using ::testing::HasSubstr;

// Sets an environment variable for a test's length, putting back what was there.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* before = std::getenv(name)) before_ = before;
    setenv(name, value, 1);
  }
  ~ScopedVariable() {
    if (before_) {
      setenv(name_, before_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  std::optional<std::string> before_;
};

std::string refusal() {
  try {
    refuse_several_ranks("train with engine = \"sim\"", "set engine = \"mpi\"");
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

TEST(MpiLaunch, OneRankOfSeveralIsRefusedNamingTheLaunchersVariable) {
  const ScopedVariable open_mpi("OMPI_COMM_WORLD_SIZE", "3");
  EXPECT_EQ(refusal(),
            "this process is one of 3 ranks of an MPI job (OMPI_COMM_WORLD_SIZE = 3), and train "
            "with engine = \"sim\" would run whole in each, every copy writing the same outputs; "
            "set engine = \"mpi\"");
}

TEST(MpiLaunch, PmiSizeCountsToo) {
  const ScopedVariable open_mpi("OMPI_COMM_WORLD_SIZE", "1");
  const ScopedVariable pmi("PMI_SIZE", "2");
  EXPECT_THAT(refusal(), HasSubstr("one of 2 ranks of an MPI job (PMI_SIZE = 2)"));
}

// One rank, or no launcher (or a value no launcher writes): nothing to refuse.
TEST(MpiLaunch, OneRankOrNoneIsNotRefused) {
  for (const char* size : {"1", "0", "", "many", "3x"}) {
    const ScopedVariable open_mpi("OMPI_COMM_WORLD_SIZE", size);
    const ScopedVariable pmi("PMI_SIZE", "1");
    EXPECT_EQ(refusal(), "") << size;
  }
}

}  // namespace
}  // namespace hetps::cli
