#include "server/thread_team.h"

#include <stdexcept>
#include <string>

namespace hetps::server {

ThreadTeam::ThreadTeam(int size) {
  if (size < 1) {
    throw std::invalid_argument("ThreadTeam: size " + std::to_string(size) +
                                " (allowed: at least 1)");
  }
  threads_.reserve(static_cast<size_t>(size - 1));
  try {
    for (int member = 1; member < size; ++member) {
      threads_.emplace_back([this, member] { serve(member); });
    }
  } catch (...) {
    end();  // the threads already started, or their destructors would end the process
    throw;
  }
}

ThreadTeam::~ThreadTeam() { end(); }

void ThreadTeam::end() {
  {
    std::lock_guard lock(mutex_);
    ending_ = true;
  }
  started_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void ThreadTeam::run_erased(ErasedJob call, const void* job) {
  if (threads_.empty()) {
    call(job, 0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    call_ = call;
    job_ = job;
    running_ = static_cast<int>(threads_.size());
    ++generation_;
  }
  started_.notify_all();
  call(job, 0);
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [this] { return running_ == 0; });
}

void ThreadTeam::serve(int member) {
  uint64_t done = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    started_.wait(lock, [&] { return ending_ || generation_ != done; });
    if (ending_) return;
    done = generation_;
    const ErasedJob call = call_;
    const void* const job = job_;
    lock.unlock();
    call(job, member);
    lock.lock();
    if (--running_ == 0) finished_.notify_one();
  }
}

}  // namespace hetps::server
