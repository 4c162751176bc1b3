// A blocking queue between threads: the threads engine's transport. Messages move, so a
// message that carries a model or an update carries a pointer to it, never a copy.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace hetps::engine {

template <typename Message>
class Mailbox {
 public:
  using Clock = std::chrono::steady_clock;

  void push(Message message) { push_unless_closed(std::move(message)); }

  // Returns false, and drops the message, when the mailbox is closed (its reader is gone).
  bool push_unless_closed(Message message) {
    {
      std::lock_guard lock(mutex_);
      if (closed_) return false;
      queue_.push_back(std::move(message));
    }
    ready_.notify_one();
    return true;
  }

  // The next message, or nothing once `deadline` has passed or the mailbox is closed.
  std::optional<Message> pop_until(Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    ready_.wait_until(lock, deadline, [&] { return closed_ || !queue_.empty(); });
    if (closed_ || queue_.empty()) return std::nullopt;
    Message message = std::move(queue_.front());
    queue_.pop_front();
    return message;
  }

  // The messages not read yet, left where they are (a checkpoint saves them).
  std::deque<Message> unread() {
    std::lock_guard lock(mutex_);
    return queue_;
  }

  // Wakes every waiter for good (the run is over, or the reader is gone) and returns the
  // messages nobody will read.
  std::deque<Message> close() {
    std::deque<Message> unread;
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      unread.swap(queue_);
    }
    ready_.notify_all();
    return unread;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Message> queue_;
  bool closed_ = false;
};

}  // namespace hetps::engine
