// `hetps tune sync-switch [--config FILE] [--set KEY=VALUE]... [--out FILE] [--runs DIR]
// [--tolerance T] [--quiet] [--force]`: Sync-Switch's offline timing search
// (protocol/switch_search.h; spec/sync-switch.md, "Timing policy") over real runs of the job on
// its engine, one after another: sync_switch with x = 1 for BSP's accuracy, then each x the
// search tries. Each run goes to <runs>/<config hash>/ (run_cache.h) and a later search that
// asks for the same config reuses it ("cached"; --force reruns). Then writes the policy file
// (config/switch_policy.h; default <runs>/policy.json) that `train` takes as
// `protocol.policy_file`, and prints the chosen x and the runs (with --quiet too).
// `hetps tune petrel` is in tune_petrel.h.
#include <atomic>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/mpi_launch.h"
#include "cli/number_flags.h"
#include "cli/output_kinds.h"
#include "cli/path_flags.h"
#include "cli/policy_table.h"
#include "cli/progress.h"
#include "cli/run_cache.h"
#include "cli/run_flags.h"
#include "cli/run_job.h"
#include "cli/staged_directory.h"
#include "cli/stop_signals.h"
#include "cli/tune_petrel.h"
#include "cli/usage_error.h"
#include "config/error.h"
#include "config/policy_job.h"
#include "config/resolve.h"
#include "config/switch_policy.h"
#include "engine/run_checkpoints.h"
#include "protocol/switch_search.h"

namespace hetps::cli {
namespace fs = std::filesystem;
namespace {

constexpr const char* kOrigin = "hetps tune sync-switch";

struct TuneFlags {
  RunFlags run;
  std::string runs = "runs/tune-sync-switch";
  double tolerance = protocol::SwitchSearchOptions{}.tolerance;
};

// The job at switch point x: the user's settings with Sync-Switch and `bsp_fraction` x on top.
config::Config job_at(const config::UserSettings& user, double x) {
  config::UserSettings settings = user;
  settings.add_string("protocol.name", "sync_switch", kOrigin);
  settings.add("protocol.bsp_fraction", fmt::format("{}", x), kOrigin);
  return config::resolve(settings);
}

// The most runs search_switch_point makes: BSP, the halvings from 50% down to the smallest x,
// and one refinement. For the progress lines' "i of at most N": a search stops halving at the
// first x that falls out of the tolerance, and refines only then, so it often makes fewer.
int most_runs(const protocol::SwitchSearchOptions& options) {
  return static_cast<int>(protocol::halvings(options).size()) + (options.refine ? 2 : 1);
}

// One run the search asked for.
struct SearchRun {
  double bsp_fraction = 0;
  double accuracy = 0;
  fs::path directory;
  std::string config_hash;
};

// The search's accuracy oracle: trains the job at each x asked for, or finds the finished run
// in the cache, and keeps the runs in the order asked (BSP's first, as the search asks).
class SearchRuns {
 public:
  // `stop` (SIGINT, SIGTERM) ends the run going on, which is discarded, with engine::Interrupted.
  SearchRuns(const TuneFlags& flags, config::UserSettings user, int most_runs,
             const std::atomic<bool>& stop)
      : flags_(flags), user_(std::move(user)), most_runs_(most_runs), stop_(stop) {}

  // The run's final test accuracy: summary.json's `final_accuracy`, the last evaluation's.
  double final_accuracy(double x) {
    const config::Config config = job_at(user_, x);
    const std::string hash = config_hash(config);
    SearchRun run{x, 0, fs::path(flags_.runs) / hash, hash};
    const std::string label = fmt::format("[{} of at most {}] x = {}{}", runs_.size() + 1,
                                          most_runs_, x, x == 1 ? " (BSP)" : "");
    const std::optional<double> cached =
        flags_.run.force ? std::nullopt : cached_final_accuracy(run.directory, config);
    run.accuracy = cached ? *cached : train(config, run.directory, label);
    if (!flags_.run.quiet) {
      fmt::print("{}: {}final accuracy {:.4f}\n", label, cached ? "cached, " : "", run.accuracy);
    }
    runs_.push_back(std::move(run));
    return runs_.back().accuracy;
  }

  const std::vector<SearchRun>& runs() const { return runs_; }

 private:
  double train(const config::Config& config, const fs::path& directory,
               const std::string& label) const {
    // Replacing is safe: the directory is named by this config's hash and holds no finished
    // run (or --force asked to rerun it); a directory that is not a run is still refused.
    StagedDirectory staged(directory, run_output(), /*replace=*/true, "--runs");
    ProgressDisplay progress(progress_style(flags_.run.quiet, config), label, config, std::cout);
    const double accuracy = keeping_a_failed_run(staged, [&] {
                              return run_job(config, staged.path(), progress, stop_);
                            }).final_accuracy;
    progress.finish();
    staged.commit();
    return accuracy;
  }

  const TuneFlags& flags_;
  config::UserSettings user_;
  int most_runs_;
  const std::atomic<bool>& stop_;
  std::vector<SearchRun> runs_;
};

config::SwitchPolicy policy_of(const protocol::SwitchSearchResult& result,
                               const std::vector<SearchRun>& runs, const config::Config& bsp) {
  config::SwitchPolicy policy;
  policy.chosen = result.chosen;
  policy.bsp_accuracy = result.bsp_accuracy;
  policy.tolerance = result.tolerance;
  policy.seed = bsp.seed;
  policy.job = config::job_settings(bsp);
  policy.bsp_run = runs.front().directory.string();
  for (auto run = runs.begin() + 1; run != runs.end(); ++run) {
    policy.candidates.push_back({run->bsp_fraction, run->accuracy, run->directory.string()});
  }
  // The chosen x is BSP's 1 or one of the x tried, so exactly one of the runs.
  for (const SearchRun& run : runs) {
    if (run.bsp_fraction == result.chosen) policy.config_hash = run.config_hash;
  }
  return policy;
}

void tune_sync_switch(const TuneFlags& flags) {
  const config::UserSettings user = user_settings(flags.run);
  refuse_setting(user, "protocol.name",
                 "hetps tune sync-switch runs protocol sync_switch (BSP as x = 1); leave "
                 "protocol.name out");
  refuse_setting(user, "protocol.bsp_fraction",
                 "hetps tune sync-switch searches protocol.bsp_fraction; leave it out");
  refuse_setting(user, "protocol.policy_file",
                 "hetps tune sync-switch writes the policy file (--out) that its search chooses; "
                 "leave protocol.policy_file out");
  // x = 1 gives BSP the whole budget, round(S) rounds (sync_switch.h), so the run is BSP's: it
  // switches only as the budget runs out (its log's one `phase` record, with no ASP update
  // after it), except for the part of a round by which S may exceed round(S), and for a
  // transient straggler's excursion if the user chose an online policy, as the job would too.
  const config::Config bsp = job_at(user, 1);
  protocol::SwitchSearchOptions options;
  options.tolerance = flags.tolerance;
  // What only a switching x refuses (a protocol.budget_steps whose switch would come after the
  // run's end: the larger x, the sooner) is refused before BSP's run rather than after it.
  const double largest = protocol::largest_candidate(options);
  try {
    job_at(user, largest);
  } catch (const config::ConfigError& error) {
    throw config::ConfigError(fmt::format(
        "{} (hetps tune sync-switch tries protocol.bsp_fraction up to {})", error.what(), largest));
  }
  check_names(bsp, &user);
  refuse_checkpoint_interval(bsp);
  if (bsp.engine == "mpi") {
    throw UsageError(
        "engine = \"mpi\": hetps tune runs its candidates one after another in one process, "
        "and the mpi engine runs one run per mpirun job; tune on sim (or threads), then give "
        "the policy file to `mpirun ... hetps train`");
  }
  const fs::path out =
      flags.run.out.empty() ? fs::path(flags.runs) / "policy.json" : fs::path(flags.run.out);
  check_output_file(out, flags.run.out.empty() ? "--runs" : "--out", "a policy file",
                    [](const fs::path& file) { config::read_switch_policy(file); });
  const StopSignals signals;
  SearchRuns runs(flags, user, most_runs(options), signals.requested());
  protocol::SwitchSearchResult result;
  try {
    result =
        protocol::search_switch_point([&](double x) { return runs.final_accuracy(x); }, options);
  } catch (const engine::Interrupted&) {
    throw RunInterrupted(fmt::format(
        "stopped by {}; the run that was going on is discarded, the candidates that finished stay "
        "in {} and the same command goes on from them",
        signals.signal_name(), flags.runs));
  }

  const config::SwitchPolicy policy = policy_of(result, runs.runs(), bsp);
  config::write_switch_policy(out, policy);
  // The result is not progress: --quiet prints it too.
  fmt::print("{}{}policy file: {}\n", flags.run.quiet ? "" : "\n", format_policy_table(policy),
             out.string());
}

}  // namespace

void add_tune_command(CLI::App& app) {
  CLI::App* tune = app.add_subcommand("tune", "Search a protocol's settings offline");
  tune->require_subcommand(1);
  CLI::App* command = tune->add_subcommand(
      "sync-switch",
      "Search Sync-Switch's switch point x (the smallest whose final accuracy stays within "
      "--tolerance of BSP's) and write the policy file train takes as protocol.policy_file");
  auto flags = std::make_shared<TuneFlags>();
  add_run_flags(*command, flags->run);
  command->get_option("--out")
      ->description("The policy file to write (default <runs>/policy.json)")
      ->type_name("FILE");
  command->get_option("--quiet")->description(
      "Print no progress, only errors and the result (the chosen x and the runs)");
  command->get_option("--force")->description(
      "Rerun the runs found in --runs instead of reusing them");
  command
      ->add_option("--runs", flags->runs,
                   "Where the runs go, each in a directory named by its config's hash")
      ->type_name("DIR")
      ->check(non_empty_path())
      ->capture_default_str();
  command
      ->add_option("--tolerance", flags->tolerance,
                   "How far below BSP's final accuracy a candidate may end, as a fraction "
                   "(0.005: half a point)")
      ->type_name("T")
      ->transform(number_within(0, 1, /*whole=*/false))
      ->capture_default_str();
  command->callback([flags] {
    refuse_several_ranks("tune sync-switch",
                         "start it without mpirun: a search runs in one process");
    tune_sync_switch(*flags);
  });
  add_tune_petrel_command(*tune);
}

}  // namespace hetps::cli
