// The MPI tests' main, run as `mpiexec -np 4 hetps_mpi_tests`: every rank runs every test, in
// the same order (the engine's ranks meet in each run). Rank 0 reports as GoogleTest does; the
// other ranks report only their failures, named by rank, so that the output reads once.
#include <gtest/gtest.h>
#include <mpi.h>

#include <iostream>
#include <string>

#include <fmt/ostream.h>

#include "engine/small_run.h"
#include "mpi/mpi_engine.h"
#include "mpi/session.h"

namespace {

class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  // The test's name is kept here: asking GoogleTest for it while it reports an exception thrown
  // by the test body waits for a lock GoogleTest holds, for good.
  void OnTestStart(const ::testing::TestInfo& test) override {
    test_ = fmt::format("{}.{}", test.test_suite_name(), test.name());
  }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    fmt::print(std::cerr, "[{}] {}: {}:{}: failure\n{}\n", hetps::mpi::this_process(), test_,
               result.file_name() ? result.file_name() : "?", result.line_number(),
               result.message());
  }

 private:
  std::string test_;
};

}  // namespace

int main(int argc, char** argv) {
  hetps::mpi::start_session(&argc, &argv);
  hetps::mpi::register_mpi_engine();
  hetps::testing::before_each_real_run() = [] { MPI_Barrier(MPI_COMM_WORLD); };
  ::testing::InitGoogleTest(&argc, argv);
  if (hetps::mpi::world_rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter);
  }
  const int result = RUN_ALL_TESTS();
  hetps::mpi::finish(result);
  return result;
}
