// A checkpoint that cannot be written, read or restored: corrupt, truncated, of another format
// version, or holding state that does not fit the run. The message names the file (or the
// part of the state) and what was expected.
#pragma once

#include <stdexcept>

namespace hetps::checkpoint {

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hetps::checkpoint
