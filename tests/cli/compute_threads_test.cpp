// How many threads a step computes with decides a run's bits (OpenBLAS rounds a product split
// over more threads differently): `run.threads_per_worker`, on every engine, and never the
// host's cores. So BSP ends on the same parameters on `sim` as on `threads` with the default,
// whatever machine runs the test.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/hetps_process.h"

namespace hetps::cli {
namespace {

using testing::Outcome;
using testing::run_hetps;
using testing::ScratchDir;
using testing::tiny_run;

// The model hash of the run's last evaluation, after the budget's last BSP round.
uint64_t final_model_hash(const ScratchDir& scratch, const std::string& name,
                          const std::vector<std::string>& settings) {
  const auto run = scratch / name;
  std::vector<std::string> args = {"train", "--quiet", "--out", run.string()};
  for (const std::string& setting : settings) {
    args.push_back("--set");
    args.push_back(setting);
  }
  const Outcome outcome = run_hetps(tiny_run(args));
  EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
  uint64_t hash = 0;
  std::ifstream log(run / "log.jsonl");
  for (std::string line; std::getline(log, line);) {
    const nlohmann::json record = nlohmann::json::parse(line);
    if (record.at("type") == "eval") hash = record.at("model_hash").get<uint64_t>();
  }
  return hash;
}

TEST(ComputeThreads, BspEndsOnTheSameModelOnSimAndThreadsWithEachThreadCount) {
  const ScratchDir scratch;
  const uint64_t sim_one = final_model_hash(scratch, "sim-1", {"engine=sim"});
  const uint64_t sim_two =
      final_model_hash(scratch, "sim-2", {"engine=sim", "run.threads_per_worker=2"});
  EXPECT_EQ(sim_one, final_model_hash(scratch, "threads-1", {"engine=threads"}));
  EXPECT_EQ(sim_two,
            final_model_hash(scratch, "threads-2", {"engine=threads", "run.threads_per_worker=2"}));
  // Without this the two checks above would prove nothing: the thread count must matter here.
  EXPECT_NE(sim_one, sim_two) << "this model's products are not split over threads";
}

}  // namespace
}  // namespace hetps::cli
