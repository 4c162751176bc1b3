// A worker rank's end of the messages (engine::WorkerLink over MPI). Replies are received into
// the rank's own model buffer, updates sent from its own update buffer; every wait is patient
// (patient_wait.h). Links are real here: no link delay is injected, and the communication
// time a worker reports is measured (its last push and the reply's transfer).
// The end of a run: the server's kStop is its last message, so a worker takes every reply
// before it (dropping those it no longer uses), then answers kGoodbye (`say_goodbye`).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "engine/worker_loop.h"
#include "mpi/messages.h"
#include "mpi/run_clock.h"

namespace hetps::mpi {

class WorkerEndpoint : public engine::WorkerLink {
 public:
  WorkerEndpoint(MPI_Comm comm, int server_rank, size_t model_floats, const RunClock& clock);

  double now() const override { return clock_.now(); }
  void ask_first_pull() override;
  std::optional<engine::PulledModel> receive(double deadline) override;
  bool run_over() override { return stop_seen_; }
  bool sleep_until(double seconds) override;
  double push_arrival(double sent) override { return sent; }
  void push(const protocol::UpdateInfo& info, std::span<const float> update) override;
  // No leaders on mpi yet (ServerEndpoint refuses their plans): these are never called.
  double member_push_arrival(int leader, double sent) override;
  void send_to_leader(int leader, const protocol::UpdateInfo& info,
                      std::span<const float> update) override;
  std::optional<engine::MemberMessage> receive_from_member(double deadline) override;
  void report_gone(const std::string& error, const std::vector<int>& stranded_members) override;
  void wait_for_end() override;

  // Waits for the end of the run, then tells the server this rank is done.
  void say_goodbye();

 private:
  engine::PulledModel take_reply();
  void send_signal(Tag tag);

  MPI_Comm comm_;
  int server_;
  const RunClock& clock_;
  std::vector<float> model_;
  std::vector<float> update_;
  UpdateHeader pushed_;         // the header in flight during a push
  double push_seconds_ = 0;     // the last push's duration
  bool stop_seen_ = false;      // the server's kStop came
  bool stop_received_ = false;  // ... and every message before it was taken
};

}  // namespace hetps::mpi
