#include "mpi/wire/shard_orders.h"

#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "mpi/wire/message_error.h"

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

// An empty list's data() may be null, which memcpy must not be given even for no bytes (found by
// fuzz/mpi_messages.cpp on every order without updates).
template <typename T>
void read(std::span<const char>& bytes, T* values, size_t count) {
  if (count == 0) return;
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

ShardOrder decode_shard_order(std::span<const char> bytes, int sender,
                              const MessageBounds& bounds) {
  const auto refuse = [&](const std::string& problem) {
    throw MessageError(sender, fmt::format("a shard order {}", problem));
  };
  Header header;
  if (bytes.size() < sizeof(Header)) {
    refuse(fmt::format("of {} bytes, shorter than its header ({})", bytes.size(), sizeof(Header)));
  }
  read(bytes, &header, 1);
  // Counts beyond the bytes first: their product with the sizes must not wrap around.
  if (header.update_ids > bytes.size() || header.weights > bytes.size() ||
      bytes.size() != header.update_ids * sizeof(int) + header.weights * sizeof(double)) {
    refuse(fmt::format("announcing {} update ids and {} weights but carrying {} bytes for them",
                       header.update_ids, header.weights, bytes.size()));
  }
  if (header.kind < ShardOrder::Kind::Apply || header.kind > ShardOrder::Kind::Keep) {
    refuse(fmt::format("of unknown kind {}", static_cast<int>(header.kind)));
  }
  if (header.update_kind != protocol::UpdateKind::Gradient &&
      header.update_kind != protocol::UpdateKind::Delta) {
    refuse(fmt::format("of unknown update kind {}", static_cast<int>(header.update_kind)));
  }
  if (header.update_ids != header.weights ||
      (header.kind == ShardOrder::Kind::Apply && header.update_ids == 0)) {
    refuse(fmt::format("with {} update ids and {} weights, expected one weight per update{}",
                       header.update_ids, header.weights,
                       header.kind == ShardOrder::Kind::Apply ? " and one update at least" : ""));
  }
  if (header.samples_processed < 0 || header.update_id < 0 || header.version < 0) {
    refuse(
        fmt::format("with samples processed {}, update id {} and version {}, expected none "
                    "negative",
                    header.samples_processed, header.update_id, header.version));
  }
  if (!std::isfinite(header.lr_scale) || header.lr_scale < 0 || !std::isfinite(header.momentum)) {
    refuse(
        fmt::format("with learning-rate scale {} and momentum {}, expected finite numbers "
                    "(the scale >= 0)",
                    header.lr_scale, header.momentum));
  }
  if (header.worker < 0 || header.worker >= bounds.workers) {
    refuse(fmt::format("to worker {}, expected a worker id 0 to {}", header.worker,
                       bounds.workers - 1));
  }
  ShardOrder order;
  order.kind = header.kind;
  order.apply.kind = header.update_kind;
  order.apply.update_ids.resize(header.update_ids);
  order.apply.weights.resize(header.weights);
  read(bytes, order.apply.update_ids.data(), header.update_ids);
  read(bytes, order.apply.weights.data(), header.weights);
  for (size_t k = 0; k < header.update_ids; ++k) {
    if (order.apply.update_ids[k] < 0 || !std::isfinite(order.apply.weights[k])) {
      refuse(
          fmt::format("applying update {} with weight {}, expected an id >= 0 and a finite "
                      "weight",
                      order.apply.update_ids[k], order.apply.weights[k]));
    }
  }
  order.samples_processed = header.samples_processed;
  order.update_id = header.update_id;
  order.settings = {header.lr_scale, header.momentum};
  order.worker = header.worker;
  order.version = header.version;
  return order;
}

}  // namespace hetps::mpi
