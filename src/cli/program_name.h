// The name the user ran hetps by, for the commands a message tells them to run ("continue with:
// hetps train --resume DIR"): a binary that registers its own model (examples/custom_model) is
// not `hetps`, and `hetps` does not know that model.
#pragma once

#include <string>

namespace hetps::cli {

// The file name of `argv0` (main's argv[0]); "hetps" when there is none. main_entry sets it
// before any command runs.
void set_program_name(const char* argv0);

// "hetps" until set.
const std::string& program_name();

}  // namespace hetps::cli
