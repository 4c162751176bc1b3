// How the threads of a real run learn that it paused (the server evaluates: workers must not
// compete with it for the cores, and the engine's clock stands still) or ended (every sleep and
// wait returns at once). A worker checks it between steps and sleeps through it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace hetps::engine {

class RunGate {
 public:
  using Clock = std::chrono::steady_clock;

  void stop() {
    set([&] { stopped_ = true; });
  }
  void pause() {
    set([&] { paused_ = true; });
  }
  void resume() {
    set([&] { paused_ = false; });
  }

  bool stopped() {
    std::lock_guard lock(mutex_);
    return stopped_;
  }

  // Returns once the run is not paused: true, or false when it stopped.
  bool wait_while_paused() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || !paused_; });
    return !stopped_;
  }

  // Sleeps until `deadline` has passed and the run is not paused: true, or false as soon as
  // the run stops.
  bool sleep_until(Clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    changed_.wait_until(lock, deadline, [&] { return stopped_; });
    changed_.wait(lock, [&] { return stopped_ || !paused_; });
    return !stopped_;
  }

 private:
  template <typename Change>
  void set(Change change) {
    {
      std::lock_guard lock(mutex_);
      change();
    }
    changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  bool stopped_ = false;
  bool paused_ = false;
};

}  // namespace hetps::engine
