#include "mpi/messages.h"

#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "mpi/patient_wait.h"
#include "mpi/wire/message_checks.h"

namespace hetps::mpi {

int element_count(size_t elements) {
  if (elements > static_cast<size_t>(std::numeric_limits<int>::max())) {
    throw std::invalid_argument(
        fmt::format("engine = \"mpi\": a message of {} elements is larger than MPI can count ({})",
                    elements, std::numeric_limits<int>::max()));
  }
  return static_cast<int>(elements);
}

size_t message_bytes(const MPI_Status& status) {
  int bytes = 0;
  MPI_Get_count(&status, MPI_BYTE, &bytes);
  return static_cast<size_t>(bytes);
}

namespace {

std::string message_of_tag(int tag) { return fmt::format("a message of tag {}", tag); }

}  // namespace

MPI_Request post_floats(std::span<const float> floats, int to, Tag tag, MPI_Comm comm) {
  MPI_Request request;
  MPI_Isend(floats.data(), element_count(floats.size()), MPI_FLOAT, to, tag, comm, &request);
  return request;
}

MPI_Request post_receive_floats(std::span<float> floats, int from, Tag tag, MPI_Comm comm) {
  const MPI_Status announced = wait_for_message(comm, from, tag);
  const std::string what = message_of_tag(tag);
  check_length(elements_in(message_bytes(announced), sizeof(float), from, what), floats.size(),
               from, what);
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
  check_length(message_bytes(wait_for_message(comm, from, tag)), 0, from, message_of_tag(tag));
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
  const size_t count = elements_in(message_bytes(status), sizeof(T), status.MPI_SOURCE,
                                   message_of_tag(status.MPI_TAG));
  std::vector<T> values(count);
  MPI_Recv(values.data(), element_count(count), datatype_of<T>(), status.MPI_SOURCE, status.MPI_TAG,
           comm, MPI_STATUS_IGNORE);
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

std::vector<char> take_message(int from, Tag tag, MPI_Comm comm) {
  return take_bytes(wait_for_message(comm, from, tag), comm);
}

MPI_Request post_text(const std::string& text, int to, Tag tag, MPI_Comm comm) {
  return post_bytes(text, to, tag, comm);
}

std::string take_text(const MPI_Status& status, MPI_Comm comm) {
  const std::vector<char> bytes = take_bytes(status, comm);
  return {bytes.begin(), bytes.end()};
}

}  // namespace hetps::mpi
