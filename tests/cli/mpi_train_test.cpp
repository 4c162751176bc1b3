// `hetps train` under mpirun: the mpi engine end to end, as a user starts it.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "cli/hetps_process.h"

namespace hetps::cli::testing {
namespace {

#ifdef HETPS_MPIEXEC
// Runs `mpiexec -np <ranks> hetps <args>`; the output goes to `output`.
int mpirun_hetps(int ranks, std::vector<std::string> args, const std::filesystem::path& output) {
  std::string command = shell_quote(HETPS_MPIEXEC) + " --oversubscribe --allow-run-as-root -np " +
                        std::to_string(ranks) + " " + shell_quote(HETPS_BINARY);
  for (const std::string& arg : args) command += " " + shell_quote(arg);
  command += " > " + shell_quote(output.string()) + " 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> mpi_run(std::vector<std::string> args, int workers) {
  args = tiny_run(std::move(args));
  for (const std::string& set :
       {std::string("engine=mpi"), "cluster.workers=" + std::to_string(workers)}) {
    args.push_back("--set");
    args.push_back(set);
  }
  return args;
}
#endif

TEST(MpiTrainTest, RankZeroWritesTheRunDirectory) {
#ifndef HETPS_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  ScratchDir scratch;
  const int exit_code = mpirun_hetps(
      4, mpi_run({"train", "--quiet", "--out", (scratch / "run").string()}, 3), scratch / "output");
  ASSERT_EQ(exit_code, 0) << read_file(scratch / "output");
  const auto summary = nlohmann::json::parse(read_file(scratch / "run" / "summary.json"));
  EXPECT_EQ(summary.at("engine"), "mpi");
  EXPECT_EQ(summary.at("workers"), 3);
  EXPECT_EQ(summary.at("stop_reason"), "max_samples");
#endif
}

TEST(MpiTrainTest, AJobOfTheWrongSizeIsBadInputSaidOnce) {
#ifndef HETPS_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  ScratchDir scratch;
  const int exit_code = mpirun_hetps(
      4, mpi_run({"train", "--quiet", "--out", (scratch / "run").string()}, 2), scratch / "output");
  EXPECT_EQ(exit_code, 2);
  const std::string output = read_file(scratch / "output");
  const std::string message =
      "cluster.servers = 1 + cluster.workers = 2 = 3 ranks, but the job has 4 (-np 4)";
  const auto first = output.find(message);
  ASSERT_NE(first, std::string::npos) << output;
  EXPECT_EQ(output.find(message, first + 1), std::string::npos) << output;
  EXPECT_NE(output.find("hetps: rank 0 on host "), std::string::npos) << output;
  EXPECT_FALSE(std::filesystem::exists(scratch / "run"));
  // Found by a probe: started without mpirun, the message spoke of an -np never given.
  const Outcome alone = run_hetps(mpi_run({"train", "--out", (scratch / "run").string()}, 2));
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_NE(alone.output.find(
                "but the job has 1 (started without mpirun, or with -np 1); start it with `mpirun "
                "-np 3 hetps ...` (or `srun -n 3 hetps ...`)"),
            std::string::npos)
      << alone.output;
  EXPECT_FALSE(std::filesystem::exists(scratch / "run"));
#endif
}

// A rank that never answers: rank 0's stall inspector names it, with its rank and host, and the
// whole job ends with a non-zero status (MPI_Abort) rather than hanging.
TEST(MpiTrainTest, AHungRankEndsTheJobWithTheStallMessage) {
#ifndef HETPS_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  ScratchDir scratch;
  const int exit_code =
      mpirun_hetps(4,
                   mpi_run({"train", "--quiet", "--out", (scratch / "run").string(), "--set",
                            "cluster.failures=[{worker=1, time=0, kind=\"hang\"}]", "--set",
                            "run.stall_warning_s=0.2", "--set", "run.stall_timeout_s=1"},
                           3),
                   scratch / "output");
  EXPECT_NE(exit_code, 0);
  const std::string output = read_file(scratch / "output");
  EXPECT_NE(output.find("stalled"), std::string::npos) << output;
  EXPECT_NE(output.find("worker 1 (rank 2 on host "), std::string::npos) << output;
  EXPECT_FALSE(std::filesystem::exists(scratch / "run" / "summary.json"));
#endif
}

// An injected crash of server shard 1 ends the job: rank 0 says which shard crashed and when,
// names the last checkpoint, and the job started again with --resume finishes the run.
TEST(MpiTrainTest, AShardCrashEndsTheJobAndItResumesFromTheLastCheckpoint) {
#ifndef HETPS_MPIEXEC
  GTEST_SKIP() << "built without MPI";
#else
  ScratchDir scratch;
  const std::filesystem::path run = scratch / "run";
  std::vector<std::string> args = mpi_run({"train", "--quiet", "--out", run.string()}, 2);
  for (const char* set :
       {"cluster.servers=2", "cluster.shard_failures=[{shard=1, time=0.5}]",
        "run.checkpoint_interval=0.1", "train.max_samples=1000000000", "train.max_time=1"}) {
    args.push_back("--set");
    args.push_back(set);
  }
  const int exit_code = mpirun_hetps(4, args, scratch / "output");
  EXPECT_EQ(exit_code, 3);
  const std::string output = read_file(scratch / "output");
  EXPECT_NE(output.find("hetps: rank 0 on host "), std::string::npos) << output;
  EXPECT_NE(output.find("server shard 1 crashed at 0.500 s of run time (cluster.shard_failures)"),
            std::string::npos)
      << output;
  // As many ranks as the job that crashed: typed as printed, it would be refused with fewer.
  EXPECT_NE(output.find("continue with: mpirun -np 4 hetps train --resume " + run.string()),
            std::string::npos)
      << output;
  EXPECT_FALSE(std::filesystem::exists(run / "summary.json"));

  const int resumed =
      mpirun_hetps(4, {"train", "--quiet", "--resume", run.string()}, scratch / "resumed");
  ASSERT_EQ(resumed, 0) << read_file(scratch / "resumed");
  const nlohmann::json summary = nlohmann::json::parse(read_file(run / "summary.json"));
  EXPECT_EQ(summary.at("engine"), "mpi");
  EXPECT_EQ(summary.at("stop_reason"), "max_time");
#endif
}

}  // namespace
}  // namespace hetps::cli::testing
