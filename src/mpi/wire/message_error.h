// A message from another rank that is not what its tag promises: a different length, or values
// no rank of a run sends. Its sender is named, and nothing of the message has been used: a rank
// that takes one ends the run with it (a failure during the run, not bad input, hence not
// std::invalid_argument).
//   rank 3 sent an update header of 12 bytes, expected 96
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace hetps::mpi {

class MessageError : public std::runtime_error {
 public:
  // `what_was_sent` completes "rank <sender> sent ...".
  MessageError(int sender, std::string_view what_was_sent)
      : std::runtime_error("rank " + std::to_string(sender) + " sent " +
                           std::string(what_was_sent)),
        sender_(sender) {}

  int sender() const { return sender_; }

 private:
  int sender_;
};

}  // namespace hetps::mpi
