// Runs gnuplot (Debian's gnuplot-nox, installed by scripts/install-deps.sh) on a script, as a
// child process started without a shell: no path is ever parsed as a command.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace hetps::report {

// gnuplot missing, failing, or killed. Not bad input: the runs were fine.
class GnuplotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The gnuplot executable on PATH, if there is one.
std::optional<std::filesystem::path> find_gnuplot();

// Runs `gnuplot <script>` in `directory` (scripts name their files relative to it). Throws
// GnuplotError when gnuplot is not installed (saying to run scripts/install-deps.sh), or when it
// exits otherwise than with status 0, naming the script and quoting gnuplot's stderr.
void run_gnuplot(const std::filesystem::path& directory, const std::string& script);

}  // namespace hetps::report
