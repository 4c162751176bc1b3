// Server aggregation against memcpy (issue 3, "Benchmarks"): bytes of gradient applied per second
// through ParameterServer::apply, as a ratio to memcpy of the same bytes, both timed in every
// iteration so that a busy machine slows both alike. The goal: ratio_to_memcpy at least 0.8.
// Orders of several gradients of equal weight are BSP's shape (momentum 0.9, its default), and
// then the bytes applied are the gradients' bytes, not the model's. Orders of one gradient of
// weight 1 are an asynchronous apply's: ASP's defaults use no server momentum (docs/defaults.md),
// SSP's and Sync-Switch's ASP phase do. The server applies with 1 or 2 threads
// (ServerOptions::apply_threads); memcpy uses one.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "params/layout.h"
#include "protocol/protocol.h"
#include "server/parameter_server.h"

namespace hetps::bench {
namespace {

constexpr size_t kFloatsPerMegabyte = (size_t{1} << 20) / sizeof(float);

template <typename Work>
double seconds_of(Work work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

protocol::ApplyOrder equal_weight_order(int gradients) {
  protocol::ApplyOrder order;
  order.kind = protocol::UpdateKind::Gradient;
  for (int k = 0; k < gradients; ++k) {
    order.update_ids.push_back(k);
    order.weights.push_back(1.0 / gradients);
  }
  return order;
}

// Arguments: the model's size in MB, the server shards, the gradients per order, the apply
// threads, the server momentum in hundredths.
void BM_ServerApplyVsMemcpy(benchmark::State& state) {
  const auto model_floats = static_cast<size_t>(state.range(0)) * kFloatsPerMegabyte;
  params::ParamLayout layout;
  layout.add("weights", {static_cast<int64_t>(model_floats)});
  server::ServerOptions options;
  options.shards = static_cast<int>(state.range(1));
  options.momentum = static_cast<double>(state.range(4)) / 100;
  options.apply_threads = static_cast<int>(state.range(3));
  server::ParameterServer server(layout, std::vector<float>(model_floats, 0.5f), options);

  const protocol::ApplyOrder order = equal_weight_order(static_cast<int>(state.range(2)));
  const std::vector<std::vector<float>> gradients(order.weights.size(),
                                                  std::vector<float>(model_floats, 1e-3f));
  std::vector<const float*> payloads;
  for (const auto& gradient : gradients) payloads.push_back(gradient.data());
  // Every gradient is copied into one buffer the model's size, as every gradient is applied
  // to the one model: the same bytes read, and a destination that stays as warm as the model.
  std::vector<float> copy_target(model_floats);

  const auto copy_all = [&] {
    for (const float* gradient : payloads) {
      std::memcpy(copy_target.data(), gradient, layout.bytes());
    }
    benchmark::ClobberMemory();
  };
  // One of each untimed first: the first apply of a fresh server (cold pages, cold caches) is
  // no part of a steady one, and a 64 MB iteration is timed only a few times. Without this, on a
  // fresh VM, 64 MB orders of 4 gradients read 0.03-0.33 of memcpy with the default run time,
  // and 1.23-1.51 over a few hundred iterations (--benchmark_min_time=5).
  server.apply(order, payloads, 0);
  copy_all();

  double apply_seconds = 0;
  double memcpy_seconds = 0;
  for (auto _ : state) {
    const double applied = seconds_of([&] { server.apply(order, payloads, 0); });
    memcpy_seconds += seconds_of(copy_all);
    apply_seconds += applied;
    state.SetIterationTime(applied);
  }
  benchmark::DoNotOptimize(server.model().data());
  benchmark::DoNotOptimize(copy_target.data());

  const auto bytes_per_order = static_cast<int64_t>(layout.bytes() * payloads.size());
  state.SetBytesProcessed(state.iterations() * bytes_per_order);
  const double bytes = static_cast<double>(state.iterations() * bytes_per_order);
  state.counters["apply_GBps"] = bytes / apply_seconds / 1e9;
  state.counters["memcpy_GBps"] = bytes / memcpy_seconds / 1e9;
  state.counters["ratio_to_memcpy"] = memcpy_seconds / apply_seconds;
}
BENCHMARK(BM_ServerApplyVsMemcpy)
    ->ArgNames({"model_mb", "shards", "gradients", "apply_threads", "momentum_pct"})
    ->ArgsProduct({{4, 64}, {1, 4}, {1, 4}, {1, 2}, {0, 90}})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hetps::bench
