// `hetps tune petrel [--config FILE] [--set KEY=VALUE]... [--episodes N] [--threads T]
// [--held-out H] [--out FILE] [--quiet]`: trains Petrel's learned configuration agent with A3C
// (model/actor_critic.h) over simulator episodes on random clusters (petrel_episodes.h), T
// episode runners at once, writes it to the agent file that `train` takes as
// `protocol.agent_file` (atomically), then scores it against the heuristic agent on H held-out
// clusters (seeds no training episode used): per cluster, the summed reward, the final test
// loss and the time to the target. The table is printed (with --quiet too) and written as JSON
// beside the agent file (<out>.evaluation.json).
#pragma once

#include <CLI/CLI.hpp>

namespace hetps::cli {

// Adds `petrel` under `hetps tune`.
void add_tune_petrel_command(CLI::App& tune);

}  // namespace hetps::cli
