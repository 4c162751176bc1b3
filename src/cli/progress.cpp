#include "cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace hetps::cli {
namespace {

constexpr auto kLineInterval = std::chrono::seconds(2);
constexpr int kBarCells = 24;

std::string format_duration(double seconds) {
  const auto whole = static_cast<int64_t>(std::lround(seconds));
  if (whole < 60) return fmt::format("{}s", whole);
  if (whole < 3600) return fmt::format("{}m{:02}s", whole / 60, whole % 60);
  return fmt::format("{}h{:02}m", whole / 3600, whole / 60 % 60);
}

}  // namespace

ProgressStyle progress_style(bool quiet, const config::Config& config) {
  if (quiet) return ProgressStyle::Silent;
  // mpirun hands each rank a pseudo-terminal of its own, whatever its own output is: a bar
  // drawn there would reach a file or pipe as one line of carriage returns.
  if (config.engine == "mpi") return ProgressStyle::Lines;
  return isatty(STDOUT_FILENO) ? ProgressStyle::Bar : ProgressStyle::Lines;
}

std::string clock_name(const config::Config& config) {
  return config.engine == "sim" ? "virtual" : "run";
}

ProgressDisplay::ProgressDisplay(ProgressStyle style, std::string label,
                                 const config::Config& config, std::ostream& out)
    : style_(style),
      label_(std::move(label)),
      clock_(clock_name(config)),
      budget_(config.train),
      out_(out) {}

void ProgressDisplay::on_eval(const metrics::EvalRecord& record) {
  const Clock::time_point now = Clock::now();
  if (!start_) start_ = now;
  const double wall_seconds = std::chrono::duration<double>(now - *start_).count();
  if (style_ == ProgressStyle::Bar) {
    draw_bar(record, wall_seconds);
  } else if (style_ == ProgressStyle::Lines && now - last_line_ >= kLineInterval) {
    last_line_ = now;
    print_line(record, wall_seconds);
  }
}

void ProgressDisplay::on_event(const nlohmann::json& record) {
  if (style_ == ProgressStyle::Silent) return;
  const std::string& type = record.at("type").get_ref<const std::string&>();
  const double time = record.at("time").get<double>();
  std::string warning;
  if (type == "diverged") {
    warning = fmt::format(
        "the test loss is no longer finite at {} time {:.1f} s: training diverged (a smaller "
        "train.lr may help)",
        clock_, time);
  } else if (type == "stall_warning") {
    // Said while the run goes on: a worker the run may soon stop for is worth knowing of now.
    warning = fmt::format("at {} time {:.1f} s: {}", clock_, time,
                          record.at("message").get<std::string>());
  } else if (type == "warning") {
    warning = record.at("message").get<std::string>();
  } else {
    return;
  }
  finish();
  fmt::print(out_, "{}: warning: {}\n", label_, warning);
  out_.flush();
}

void ProgressDisplay::finish() {
  if (style_ == ProgressStyle::Bar && bar_width_ > 0) out_ << '\n' << std::flush;
  bar_width_ = 0;
}

double ProgressDisplay::fraction_done(const metrics::EvalRecord& record) const {
  double fraction = static_cast<double>(record.samples) / static_cast<double>(budget_.max_samples);
  if (std::isfinite(budget_.max_time))
    fraction = std::max(fraction, record.time / budget_.max_time);
  return std::clamp(fraction, 0.0, 1.0);
}

void ProgressDisplay::draw_bar(const metrics::EvalRecord& record, double wall_seconds) {
  const double fraction = fraction_done(record);
  const int filled = static_cast<int>(fraction * kBarCells);
  const std::string eta =
      fraction > 0 ? format_duration(wall_seconds * (1 - fraction) / fraction) : "?";
  std::string bar =
      fmt::format("{} [{}{}] {:3.0f}%  {} {:.1f}s  wall {}  acc {:.4f}  ETA {}", label_,
                  std::string(filled, '#'), std::string(kBarCells - filled, '.'), 100 * fraction,
                  clock_, record.time, format_duration(wall_seconds), record.test_accuracy, eta);
  const size_t width = bar.size();
  if (width < bar_width_) bar.append(bar_width_ - width, ' ');
  bar_width_ = width;
  out_ << '\r' << bar << std::flush;
}

void ProgressDisplay::print_line(const metrics::EvalRecord& record, double wall_seconds) {
  fmt::print(out_, "{}: {:.0f}% of budget, {} time {:.1f} s, accuracy {:.4f}, wall {}\n", label_,
             100 * fraction_done(record), clock_, record.time, record.test_accuracy,
             format_duration(wall_seconds));
  out_.flush();
}

}  // namespace hetps::cli
