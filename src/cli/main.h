// The `hetps` command line, callable from any executable: a program that registers its own
// model (see model/register.h) and then calls main_entry gets the whole CLI with that model.
#pragma once

namespace hetps::cli {

// Runs `hetps <sub-command> ...`. Returns the exit status: 0 success, 1 a run failed,
// 2 bad input (flags, config keys or values, an existing or unusable output directory, a
// missing or corrupt data or trace file), 3 an injected server-shard crash ended the run
// (`cluster.shard_failures`), 130 SIGINT or SIGTERM stopped it with a checkpoint.
int main_entry(int argc, char** argv);

}  // namespace hetps::cli
