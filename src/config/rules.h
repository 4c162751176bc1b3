// What a setting's value must satisfy, and how to say so in an error message.
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace hetps::config {

// An interval of allowed numbers: ">= 1", "> 0", "in [0, 1)". Only finite numbers are allowed
// unless or_infinity() says otherwise; NaN never is.
class Range {
 public:
  static Range at_least(double min) { return {min, kInf, false, false}; }
  static Range above(double min) { return {min, kInf, true, false}; }
  // [min, max]
  static Range between(double min, double max) { return {min, max, false, false}; }
  // [min, max)
  static Range half_open(double min, double max) { return {min, max, false, true}; }
  // (min, max]
  static Range left_open(double min, double max) { return {min, max, true, false}; }

  // The same range, +inf allowed too (`train.max_time = inf`: no limit).
  Range or_infinity() const {
    Range range = *this;
    range.infinity_allowed_ = true;
    return range;
  }

  bool contains(double value) const;
  // Whether there is no upper bound.
  bool open_ended() const { return max_ == kInf; }
  bool allows_infinity() const { return infinity_allowed_; }
  // " >= 1", " in [0, 1)", " > 0, or inf": ready to follow "a number".
  std::string describe() const;

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  Range(double min, double max, bool min_open, bool max_open)
      : min_(min), max_(max), min_open_(min_open), max_open_(max_open) {}

  double min_;
  double max_;  // kInf: no upper bound
  bool min_open_;
  bool max_open_;
  bool infinity_allowed_ = false;
};

// The words a string setting allows; empty allows any string.
struct Choices {
  std::vector<std::string> words;

  // The `name` of every item: Choices::named(scenarios()).
  template <class Items>
  static Choices named(const Items& items) {
    Choices choices;
    for (const auto& item : items) choices.words.push_back(item.name);
    return choices;
  }

  bool allows(const std::string& word) const;
  // "a string" or "one of: sim, threads, mpi".
  std::string describe() const;
};

// A string used as the name of one directory (`run.name` names the run's directory): anything
// that cannot climb out of or replace its parent.
struct DirectoryName {
  bool allows(const std::string& word) const;
  std::string describe() const;
};

// A protocol known when the value is read (protocol/registry.h): a program may register one of
// its own after the schema was built, when a first config was read.
struct RegisteredProtocol {
  bool allows(const std::string& word) const;
  std::string describe() const;
};

// For settings whose type says it all (true/false).
struct Unconstrained {};

}  // namespace hetps::config
