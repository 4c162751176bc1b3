#include "mpi/shard_orders.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

namespace hetps::mpi {
namespace {

// Everything but the two lists, whose lengths it gives.
struct Header {
  ShardOrder::Kind kind;
  protocol::UpdateKind update_kind;
  int64_t samples_processed;
  int update_id;
  double lr_scale;
  double momentum;
  int worker;
  int64_t version;
  uint64_t update_ids;
  uint64_t weights;
};
static_assert(std::is_trivially_copyable_v<Header>);

template <typename T>
void append(std::vector<char>& bytes, const T* values, size_t count) {
  const auto* first = reinterpret_cast<const char*>(values);
  bytes.insert(bytes.end(), first, first + count * sizeof(T));
}

template <typename T>
void read(std::span<const char>& bytes, T* values, size_t count) {
  std::memcpy(values, bytes.data(), count * sizeof(T));
  bytes = bytes.subspan(count * sizeof(T));
}

}  // namespace

std::vector<char> encode(const ShardOrder& order) {
  // Zeroed first: the padding between fields goes on the wire too.
  Header header;
  std::memset(&header, 0, sizeof(header));
  header.kind = order.kind;
  header.update_kind = order.apply.kind;
  header.samples_processed = order.samples_processed;
  header.update_id = order.update_id;
  header.lr_scale = order.settings.lr_scale;
  header.momentum = order.settings.momentum;
  header.worker = order.worker;
  header.version = order.version;
  header.update_ids = order.apply.update_ids.size();
  header.weights = order.apply.weights.size();
  std::vector<char> bytes;
  append(bytes, &header, 1);
  append(bytes, order.apply.update_ids.data(), order.apply.update_ids.size());
  append(bytes, order.apply.weights.data(), order.apply.weights.size());
  return bytes;
}

ShardOrder decode_shard_order(std::span<const char> bytes) {
  Header header;
  if (bytes.size() < sizeof(Header)) {
    throw std::invalid_argument(
        fmt::format("a shard order of {} bytes is shorter than its header", bytes.size()));
  }
  read(bytes, &header, 1);
  // Counts beyond the bytes first: their product with the sizes must not wrap around.
  if (header.update_ids > bytes.size() || header.weights > bytes.size() ||
      bytes.size() != header.update_ids * sizeof(int) + header.weights * sizeof(double)) {
    throw std::invalid_argument(fmt::format(
        "a shard order announces {} update ids and {} weights but carries {} bytes for them",
        header.update_ids, header.weights, bytes.size()));
  }
  ShardOrder order;
  order.kind = header.kind;
  order.apply.kind = header.update_kind;
  order.apply.update_ids.resize(header.update_ids);
  order.apply.weights.resize(header.weights);
  read(bytes, order.apply.update_ids.data(), header.update_ids);
  read(bytes, order.apply.weights.data(), header.weights);
  order.samples_processed = header.samples_processed;
  order.update_id = header.update_id;
  order.settings = {header.lr_scale, header.momentum};
  order.worker = header.worker;
  order.version = header.version;
  return order;
}

}  // namespace hetps::mpi
