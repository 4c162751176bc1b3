// Bad input to the report: a run directory that is not one, a missing file, a malformed line.
// The message names the file (and line) and what was expected there:
//   runs/cmp/asp/seed-2/log.jsonl:17: expected a JSON object, got: unexpected end of input
#pragma once

#include <stdexcept>

namespace hetps::report {

// Derives from std::invalid_argument: the command line maps bad input to one exit status.
class ReportInputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace hetps::report
