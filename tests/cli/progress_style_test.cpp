#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>

#include <gtest/gtest.h>

#include "cli/progress.h"

namespace hetps::cli {
namespace {

// Runs `check` with stdout on a pseudo-terminal, as mpirun hands one to each rank.
void with_stdout_on_a_terminal(const std::function<void()>& check) {
  const int controller = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(controller, 0) << "no pseudo-terminal";
  ASSERT_EQ(grantpt(controller), 0);
  ASSERT_EQ(unlockpt(controller), 0);
  const int terminal = open(ptsname(controller), O_RDWR | O_NOCTTY);
  ASSERT_GE(terminal, 0);
  std::cout.flush();
  std::fflush(stdout);
  const int saved_stdout = dup(STDOUT_FILENO);
  ASSERT_GE(saved_stdout, 0);
  ASSERT_GE(dup2(terminal, STDOUT_FILENO), 0);
  check();
  dup2(saved_stdout, STDOUT_FILENO);
  close(saved_stdout);
  close(terminal);
  close(controller);
}

config::Config on_engine(const char* engine) {
  config::Config config;
  config.engine = engine;
  return config;
}

TEST(ProgressStyle, ATerminalGetsABarButAnMpiRankGetsLines) {
  ProgressStyle on_sim = ProgressStyle::Silent;
  ProgressStyle on_mpi = ProgressStyle::Silent;
  with_stdout_on_a_terminal([&] {
    on_sim = progress_style(false, on_engine("sim"));
    on_mpi = progress_style(false, on_engine("mpi"));
  });
  EXPECT_EQ(on_sim, ProgressStyle::Bar);
  EXPECT_EQ(on_mpi, ProgressStyle::Lines);
  EXPECT_EQ(progress_style(true, on_engine("mpi")), ProgressStyle::Silent);
}

}  // namespace
}  // namespace hetps::cli
