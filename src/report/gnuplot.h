// Runs gnuplot (Debian's gnuplot-nox, installed by scripts/install-deps.sh) on a script, as a
// child process started without a shell: no path is ever parsed as a command.
#pragma once

#include <chrono>
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

// How long one plot may take before gnuplot is taken for hung and stopped: the largest plots
// (64 workers' timelines) draw in a few seconds.
inline constexpr std::chrono::seconds kGnuplotPatience{120};

// Runs `gnuplot <script>` in `directory` (scripts name their files relative to it). Throws
// GnuplotError when gnuplot is not installed (saying to run scripts/install-deps.sh), when it
// exits otherwise than with status 0, naming the script and quoting gnuplot's stderr, or when it
// has not finished after `patience` (it is then killed): a report never hangs on a plot.
void run_gnuplot(const std::filesystem::path& directory, const std::string& script,
                 std::chrono::duration<double> patience = kGnuplotPatience);

}  // namespace hetps::report
