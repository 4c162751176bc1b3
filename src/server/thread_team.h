// A fixed team of threads that run the parts of one job together and finish together
// (fork-join): the parameter server's way to apply one order with several cores' memory
// bandwidth. The calling thread is member 0, so a team of one starts no thread at all.
//
//   ThreadTeam team(2);
//   team.run([&](int member) { apply_keys_of(member); });  // returns when both parts are done
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace hetps::server {

class ThreadTeam {
 public:
  // `size` members: the caller and size − 1 threads started here, asleep until run().
  explicit ThreadTeam(int size);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return static_cast<int>(threads_.size()) + 1; }

  // Calls job(member) once for every member in [0, size()), member 0 on the calling thread, and
  // returns when every call has returned. `job` must not throw. One run at a time.
  template <typename Job>
  void run(const Job& job) {
    run_erased(&call<Job>, &job);
  }

 private:
  // The job without its type and without a copy: a std::function would allocate per apply.
  using ErasedJob = void (*)(const void* job, int member);
  template <typename Job>
  static void call(const void* job, int member) {
    (*static_cast<const Job*>(job))(member);
  }
  void run_erased(ErasedJob call, const void* job);
  void end();
  void serve(int member);

  std::mutex mutex_;
  std::condition_variable started_;   // a new job, or the team is ending
  std::condition_variable finished_;  // the last thread's part is done
  ErasedJob call_ = nullptr;
  const void* job_ = nullptr;
  uint64_t generation_ = 0;  // counts jobs, so that a thread runs each job once
  int running_ = 0;          // threads still inside the current job
  bool ending_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace hetps::server
