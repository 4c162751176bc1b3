#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <thread>

#include "engine/mailbox.h"
#include "support/deadlines.h"

namespace hetps::engine {
namespace {

using testing::far_deadline;
using testing::past_deadline;

TEST(MailboxTest, DeliversInTheOrderSent) {
  Mailbox<int> box;
  box.push(1);
  box.push(2);
  box.push(3);
  EXPECT_EQ(box.pop_until(far_deadline()), 1);
  EXPECT_EQ(box.pop_until(far_deadline()), 2);
  EXPECT_EQ(box.pop_until(far_deadline()), 3);
}

TEST(MailboxTest, APastDeadlineOnAnEmptyBoxGivesNothing) {
  Mailbox<int> box;
  EXPECT_EQ(box.pop_until(past_deadline()), std::nullopt);
}

TEST(MailboxTest, AWaitingMessageIsDeliveredEvenPastTheDeadline) {
  Mailbox<int> box;
  box.push(4);
  EXPECT_EQ(box.pop_until(past_deadline()), 4);
}

TEST(MailboxTest, APushWakesAWaiterInAnotherThread) {
  Mailbox<int> box;
  std::optional<int> received;
  std::thread receiver([&] { received = box.pop_until(far_deadline()); });
  box.push(5);
  receiver.join();
  EXPECT_EQ(received, 5);
}

TEST(MailboxTest, CloseWakesAWaiterInAnotherThread) {
  Mailbox<int> box;
  std::optional<int> received = 0;
  std::thread receiver([&] { received = box.pop_until(far_deadline()); });
  box.close();
  receiver.join();
  EXPECT_EQ(received, std::nullopt);
}

TEST(MailboxTest, AClosedBoxDeliversNothingMore) {
  Mailbox<int> box;
  box.push(6);
  box.close();
  EXPECT_EQ(box.pop_until(far_deadline()), std::nullopt);
}

TEST(MailboxTest, MessagesMoveThroughIt) {
  Mailbox<std::unique_ptr<int>> box;
  auto message = std::make_unique<int>(7);
  const int* payload = message.get();
  box.push(std::move(message));
  std::optional<std::unique_ptr<int>> received = box.pop_until(far_deadline());
  ASSERT_TRUE(received);
  EXPECT_EQ(received->get(), payload);
  EXPECT_EQ(**received, 7);
}

}  // namespace
}  // namespace hetps::engine
