// The sub-commands of `hetps`. Each registers its flags on the app and runs from its CLI11
// callback; a failure is thrown (see main_entry for the exit statuses).
#pragma once

#include <CLI/CLI.hpp>

namespace hetps::cli {

void add_train_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_data_command(CLI::App& app);
void add_protocols_command(CLI::App& app);
void add_tune_command(CLI::App& app);

}  // namespace hetps::cli
