#include "cli/mpi_launch.h"

#include <charconv>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "cli/usage_error.h"

namespace hetps::cli {

void refuse_several_ranks(std::string_view what, std::string_view instead) {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(variable);
    if (value == nullptr) continue;
    const std::string_view text(value);
    int ranks = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), ranks);
    if (error != std::errc() || end != text.data() + text.size() || ranks <= 1) continue;
    throw UsageError(fmt::format(
        "this process is one of {} ranks of an MPI job ({} = {}), and {} would run whole in each, "
        "every copy writing the same outputs; {}",
        ranks, variable, text, what, instead));
  }
}

}  // namespace hetps::cli
