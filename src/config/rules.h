// What a setting's value must satisfy, and how to say so in an error message.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace hetps::config {

// An interval of allowed numbers: ">= 1", "> 0", "in [0, 1)".
class Range {
 public:
  static Range at_least(double min) { return {min, kInf, false, false}; }
  static Range above(double min) { return {min, kInf, true, false}; }
  // [min, max)
  static Range half_open(double min, double max) { return {min, max, false, true}; }
  // (min, max]
  static Range left_open(double min, double max) { return {min, max, true, false}; }

  bool contains(double value) const;
  // " >= 1", " in [0, 1)": ready to follow "a number".
  std::string describe() const;

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  Range(double min, double max, bool min_open, bool max_open)
      : min_(min), max_(max), min_open_(min_open), max_open_(max_open) {}

  double min_;
  double max_;  // kInf: no upper bound
  bool min_open_;
  bool max_open_;
};

// The words a string setting allows; empty allows any string.
struct Choices {
  std::vector<std::string> words;

  bool allows(const std::string& word) const;
  // "a string" or "one of: sim, threads, mpi".
  std::string describe() const;
};

// For settings whose type says it all (true/false, the straggler list).
struct Unconstrained {};

}  // namespace hetps::config
