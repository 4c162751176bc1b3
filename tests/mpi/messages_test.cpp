// What a rank takes from another is checked before it is used: a message of another length than
// its tag and its header announce is refused with a MessageError naming the sender, and never
// overruns or half-fills the buffer it was meant for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include <fmt/format.h>

#include "every_rank.h"
#include "mpi/communicator.h"
#include "mpi/messages.h"
#include "mpi/patient_wait.h"
#include "mpi/session.h"
#include "mpi/wire/message_error.h"

namespace hetps::testing {
namespace {

using ::testing::ThrowsMessage;

constexpr int kReceiver = 0;
constexpr int kSender = 1;

TEST(MessagesTest, FloatsShorterOrLongerThanTheBufferAreRefusedNamingTheSender) {
  const mpi::Communicator comm(kPatient);
  if (mpi::world_rank() == kSender) {
    const std::vector<float> three(3, 1.0f);
    const std::vector<float> five(5, 1.0f);
    std::vector<MPI_Request> sends = {
        mpi::post_floats(three, kReceiver, mpi::kUpdatePayload, comm.get()),
        mpi::post_floats(five, kReceiver, mpi::kUpdatePayload, comm.get())};
    mpi::wait_for_all(sends);
  } else if (mpi::world_rank() == kReceiver) {
    std::vector<float> buffer(4, 0.0f);
    for (const int sent : {3, 5}) {
      EXPECT_THAT(
          [&] { mpi::post_receive_floats(buffer, kSender, mpi::kUpdatePayload, comm.get()); },
          ThrowsMessage<mpi::MessageError>(
              fmt::format("rank 1 sent a message of tag {} as {} elements, expected 4",
                          static_cast<int>(mpi::kUpdatePayload), sent)));
      EXPECT_EQ(buffer, std::vector<float>(4, 0.0f));  // nothing of it was received
      // Taken here, so that no message is left behind for a later test.
      std::vector<float> drain(8);
      MPI_Recv(drain.data(), 8, MPI_FLOAT, kSender, mpi::kUpdatePayload, comm.get(),
               MPI_STATUS_IGNORE);
    }
  }
  meet_everyone();
}

TEST(MessagesTest, AHeaderOfAnotherLengthAndASignalThatIsNotEmptyAreRefused) {
  const mpi::Communicator comm(kPatient);
  const std::vector<char> short_header(sizeof(mpi::UpdateHeader) - 1, 0);
  const std::vector<char> one_byte = {7};
  if (mpi::world_rank() == kSender) {
    std::vector<MPI_Request> sends = {
        mpi::post_bytes(short_header, kReceiver, mpi::kUpdateHeader, comm.get()),
        mpi::post_bytes(one_byte, kReceiver, mpi::kGoodbye, comm.get())};
    mpi::wait_for_all(sends);
  } else if (mpi::world_rank() == kReceiver) {
    const mpi::MessageBounds bounds{.workers = 3, .model_floats = 10};
    EXPECT_THAT(
        [&] {
          mpi::decode_update_header(mpi::take_message(kSender, mpi::kUpdateHeader, comm.get()),
                                    kSender, bounds);
        },
        ThrowsMessage<mpi::MessageError>(fmt::format("rank 1 sent an update header of {} bytes, "
                                                     "expected {}",
                                                     short_header.size(),
                                                     sizeof(mpi::UpdateHeader))));
    EXPECT_THAT([&] { mpi::take_signal(kSender, mpi::kGoodbye, comm.get()); },
                ThrowsMessage<mpi::MessageError>(
                    fmt::format("rank 1 sent a message of tag {} as 1 elements, expected 0",
                                static_cast<int>(mpi::kGoodbye))));
    mpi::take_bytes(mpi::wait_for_message(comm.get(), kSender, mpi::kGoodbye), comm.get());
  }
  meet_everyone();
}

}  // namespace
}  // namespace hetps::testing
