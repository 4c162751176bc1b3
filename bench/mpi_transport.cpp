// The mpi engine's push + pull against a bare MPI ping-pong of the same size, measured in the
// same run (issue 3, "Transport"; goal: hetps / raw >= 0.7). Run with two ranks:
//   mpirun --oversubscribe --allow-run-as-root -np 2 build/bench/hetps_mpi_transport_bench
// For each model size the two exchanges take turns, a batch of round trips each, so that a
// busy moment of the machine hits both alike; the table gives the medians over the batches.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include "bench/mpi_transport/engine_exchange.h"
#include "bench/mpi_transport/raw_ping_pong.h"
#include "config/config.h"
#include "engine/precise_wakeups.h"
#include "mpi/communicator.h"
#include "mpi/session.h"

namespace hetps::bench {
namespace {

constexpr double kGoal = 0.7;
constexpr size_t kModelsMiB[] = {4, 64};
// Each batch moves about this many bytes each way, so that a batch of either size takes a
// similar, measurable time (128 round trips of 4 MB, 8 of 64 MB).
constexpr double kBytesPerBatch = 512.0 * (1 << 20);
constexpr int kWarmUpRounds = 2;

struct Options {
  int repetitions = 7;
};

struct Row {
  size_t model_mib = 0;
  int rounds = 0;
  double raw_gbps = 0;
  double hetps_gbps = 0;
  double ratio = 0;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// Both exchanges for one model size, in alternating batches. The ratio is the median of the
// batches' ratios: each pair of batches ran side by side in time.
Row measure(size_t model_mib, const Options& options) {
  const size_t floats = model_mib * (1 << 20) / sizeof(float);
  const double bytes_each_way = static_cast<double>(floats * sizeof(float));
  const int rounds = static_cast<int>(std::ceil(kBytesPerBatch / bytes_each_way));
  const double bytes_per_batch = 2 * bytes_each_way * rounds;

  // As long as a run would wait for its ranks (run.stall_timeout_s's default).
  const double patience = config::Config{}.run.stall_timeout_s;
  const mpi::Communicator raw_comm(patience);
  const mpi::Communicator engine_comm(patience);
  RawPingPong raw(raw_comm.get(), floats);
  const auto engine = EngineExchange::start(engine_comm.get(), floats);
  raw.round_trips(kWarmUpRounds);
  engine->round_trips(kWarmUpRounds);

  std::vector<double> raw_gbps;
  std::vector<double> hetps_gbps;
  std::vector<double> ratios;
  for (int repetition = 0; repetition < options.repetitions; ++repetition) {
    raw_gbps.push_back(bytes_per_batch / raw.round_trips(rounds) / 1e9);
    hetps_gbps.push_back(bytes_per_batch / engine->round_trips(rounds) / 1e9);
    ratios.push_back(hetps_gbps.back() / raw_gbps.back());
  }
  engine->end();
  return {model_mib, rounds, median(raw_gbps), median(hetps_gbps), median(ratios)};
}

void print_table(const std::vector<Row>& rows, const Options& options) {
  fmt::print(
      "mpi transport, 2 ranks: push + pull through WorkerEndpoint/ServerEndpoint vs MPI_Send/"
      "MPI_Recv ping-pong\n"
      "GB/s = 1e9 bytes of model and update moved per second, both ways; medians of {} "
      "alternating batches\n\n",
      options.repetitions);
  fmt::print("| model | round trips / batch | raw MPI GB/s | hetps GB/s | hetps / raw | goal |\n");
  fmt::print("|---|---|---|---|---|---|\n");
  for (const Row& row : rows) {
    fmt::print("| {} MB | {} | {:.2f} | {:.2f} | {:.2f} | >= {} {} |\n", row.model_mib, row.rounds,
               row.raw_gbps, row.hetps_gbps, row.ratio, kGoal,
               row.ratio >= kGoal ? "met" : "missed");
  }
}

void run(const Options& options) {
  if (mpi::world_size() != 2) {
    throw std::invalid_argument(fmt::format(
        "hetps_mpi_transport_bench runs on exactly 2 ranks (a server and a worker), but the job "
        "has {}: start it with mpirun -np 2",
        mpi::world_size()));
  }
  const engine::PreciseWakeups on_time;  // as the mpi engine's run has
  std::vector<Row> rows;
  for (size_t model_mib : kModelsMiB) rows.push_back(measure(model_mib, options));
  if (mpi::world_rank() == 0) print_table(rows, options);
}

}  // namespace
}  // namespace hetps::bench

int main(int argc, char** argv) {
  hetps::mpi::start_session(&argc, &argv);
  hetps::bench::Options options;
  CLI::App app{"The mpi engine's push + pull bandwidth against a bare MPI ping-pong"};
  app.add_option("--repetitions", options.repetitions,
                 "alternating batches of round trips per model size; the table gives medians")
      ->check(CLI::Range(1, 1000));
  int status = 0;
  try {
    app.parse(argc, argv);
    hetps::bench::run(options);
  } catch (const CLI::ParseError& error) {
    // Every rank parses the same arguments: one says what was wrong.
    status = hetps::mpi::world_rank() == 0 ? app.exit(error) : error.get_exit_code();
  } catch (const std::exception& error) {
    fmt::print(std::cerr, "[{}] {}\n", hetps::mpi::this_process(), error.what());
    status = 1;
  }
  hetps::mpi::finish(status);
  return status;
}
