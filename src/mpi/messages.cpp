#include "mpi/messages.h"

#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "worker/top_k.h"

namespace hetps::mpi {

int element_count(size_t elements) {
  if (elements > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw std::invalid_argument(
        fmt::format("engine = \"mpi\": a message of {} elements is larger than MPI can count ({})",
                    elements, std::numeric_limits<int>::max()));
  }
  return static_cast<int>(elements);
}

MPI_Request post_floats(std::span<const float> floats, int to, Tag tag, MPI_Comm comm) {
  MPI_Request request;
  MPI_Isend(floats.data(), element_count(floats.size()), MPI_FLOAT, to, tag, comm, &request);
  return request;
}

MPI_Request post_receive_floats(std::span<float> floats, int from, Tag tag, MPI_Comm comm) {
  MPI_Request request;
  MPI_Irecv(floats.data(), element_count(floats.size()), MPI_FLOAT, from, tag, comm, &request);
  return request;
}

MPI_Request post_signal(int to, Tag tag, MPI_Comm comm) {
  MPI_Request request;
  MPI_Isend(nullptr, 0, MPI_BYTE, to, tag, comm, &request);
  return request;
}

void take_signal(int from, Tag tag, MPI_Comm comm) {
  MPI_Recv(nullptr, 0, MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE);
}

namespace {

template <typename T>
MPI_Datatype datatype_of();
template <>
MPI_Datatype datatype_of<int>() {
  return MPI_INT;
}
template <>
MPI_Datatype datatype_of<double>() {
  return MPI_DOUBLE;
}
template <>
MPI_Datatype datatype_of<char>() {
  return MPI_BYTE;
}

template <typename T>
MPI_Request post_values(std::span<const T> values, int to, Tag tag, MPI_Comm comm) {
  MPI_Request request;
  MPI_Isend(values.data(), element_count(values.size()), datatype_of<T>(), to, tag, comm, &request);
  return request;
}

// Receives the message `status` announced (a probe's), whatever its length.
template <typename T>
std::vector<T> take_values(const MPI_Status& status, MPI_Comm comm) {
  int count = 0;
  MPI_Get_count(&status, datatype_of<T>(), &count);
  std::vector<T> values(static_cast<size_t>(count));
  MPI_Recv(values.data(), count, datatype_of<T>(), status.MPI_SOURCE, status.MPI_TAG, comm,
           MPI_STATUS_IGNORE);
  return values;
}

}  // namespace

MPI_Request post_ids(std::span<const int> ids, int to, Tag tag, MPI_Comm comm) {
  return post_values(ids, to, tag, comm);
}

std::vector<int> take_ids(const MPI_Status& status, MPI_Comm comm) {
  return take_values<int>(status, comm);
}

MPI_Request post_doubles(std::span<const double> doubles, int to, Tag tag, MPI_Comm comm) {
  return post_values(doubles, to, tag, comm);
}

std::vector<double> take_doubles(const MPI_Status& status, MPI_Comm comm) {
  return take_values<double>(status, comm);
}

MPI_Request post_bytes(std::span<const char> bytes, int to, Tag tag, MPI_Comm comm) {
  return post_values(bytes, to, tag, comm);
}

std::vector<char> take_bytes(const MPI_Status& status, MPI_Comm comm) {
  return take_values<char>(status, comm);
}

MPI_Request post_text(const std::string& text, int to, Tag tag, MPI_Comm comm) {
  return post_bytes(text, to, tag, comm);
}

std::string take_text(const MPI_Status& status, MPI_Comm comm) {
  const std::vector<char> bytes = take_bytes(status, comm);
  return {bytes.begin(), bytes.end()};
}

protocol::WorkerPlan ReplyHeader::plan(std::vector<int> gather_from,
                                       std::vector<double> data_shares) const {
  protocol::WorkerPlan plan;
  plan.kind = kind;
  plan.max_local_steps = max_local_steps;
  plan.change_threshold = change_threshold;
  plan.keep_ratio = keep_ratio;
  plan.error_feedback = error_feedback != 0;
  plan.send_to = send_to;
  plan.gather_from = std::move(gather_from);
  plan.data_shares = std::move(data_shares);
  return plan;
}

UpdateHeader UpdateHeader::of(const protocol::UpdateInfo& info) {
  return {info.id,
          info.worker,
          info.kind,
          info.base_version,
          info.clock,
          info.steps,
          info.samples,
          info.train_loss,
          info.compute_seconds,
          info.comm_seconds,
          info.push_seconds,
          info.pull_seconds,
          static_cast<int>(info.members.size()),
          kDense};
}

int64_t UpdateHeader::pushed_bytes(int64_t model_bytes) const {
  return compressed() ? kept_entries * worker::SparseDelta::kBytesPerEntry : model_bytes;
}

protocol::UpdateInfo UpdateHeader::info(std::vector<int> merged_members,
                                        std::vector<double> merged_step_seconds) const {
  protocol::UpdateInfo info;
  info.id = id;
  info.worker = worker;
  info.kind = kind;
  info.base_version = base_version;
  info.clock = clock;
  info.steps = steps;
  info.samples = samples;
  info.train_loss = train_loss;
  info.compute_seconds = compute_seconds;
  info.comm_seconds = comm_seconds;
  info.push_seconds = push_seconds;
  info.pull_seconds = pull_seconds;
  info.members = std::move(merged_members);
  info.merged_step_seconds = std::move(merged_step_seconds);
  return info;
}

}  // namespace hetps::mpi
