#include "model/flop_counter.h"

#include <ATen/record_function.h>

#include <array>
#include <stdexcept>
#include <string_view>

namespace hetps::model {
namespace {

using Values = c10::ArrayRef<const c10::IValue>;

double numel(const c10::IValue& tensor) { return static_cast<double>(tensor.toTensor().numel()); }
double size(const c10::IValue& tensor, int64_t dim) {
  return static_cast<double>(tensor.toTensor().size(dim));
}

// A dense operator and its multiply-adds, from its inputs and outputs: the number of output
// elements times the length of the dot product each one is.
struct DenseOperator {
  std::string_view name;
  double (*multiply_adds)(Values inputs, Values outputs);
};

constexpr std::array<DenseOperator, 6> kDenseOperators{{
    // (input [..., in], weight [out, in], bias)
    {"aten::linear", [](Values in, Values out) { return numel(out[0]) * size(in[1], 1); }},
    // (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    // one filter has weight.numel() / weight.size(0) taps; a transposed convolution spreads
    // each input element over a filter instead of gathering one per output element.
    {"aten::convolution",
     [](Values in, Values out) {
       const double taps = numel(in[1]) / size(in[1], 0);
       return (in[6].toBool() ? numel(in[0]) : numel(out[0])) * taps;
     }},
    {"aten::addmm", [](Values in, Values out) { return numel(out[0]) * size(in[1], 1); }},
    {"aten::mm", [](Values in, Values out) { return numel(out[0]) * size(in[0], 1); }},
    {"aten::bmm", [](Values in, Values out) { return numel(out[0]) * size(in[0], 2); }},
    {"aten::baddbmm", [](Values in, Values out) { return numel(out[0]) * size(in[1], 2); }},
}};

const DenseOperator* dense_operator(std::string_view name) {
  for (const auto& op : kDenseOperators) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

thread_local ForwardFlopCounter* active_counter = nullptr;

}  // namespace

// libtorch takes plain function pointers as callbacks, hence the thread-local counter.
struct FlopObserver {
  static std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& call) {
    if (dense_operator(call.name()) != nullptr) ++active_counter->depth_;
    return nullptr;
  }
  static void on_end(const at::RecordFunction& call, at::ObserverContext* /*context*/) {
    const DenseOperator* op = dense_operator(call.name());
    if (op == nullptr) return;
    if (--active_counter->depth_ != 0) return;
    const auto& outputs = call.outputs();
    // An operator that threw (a model whose layers do not fit the input) has no outputs, and
    // libtorch ends its record as the error unwinds: it computed nothing.
    if (outputs.empty()) return;
    active_counter->flops_ +=
        2 * op->multiply_adds(call.inputs(), Values(outputs.data(), outputs.size()));
  }
};

ForwardFlopCounter::ForwardFlopCounter() {
  if (active_counter != nullptr) {
    throw std::logic_error("ForwardFlopCounter: counters do not nest");
  }
  active_counter = this;
  callback_ = at::addThreadLocalCallback(
      at::RecordFunctionCallback(&FlopObserver::on_start, &FlopObserver::on_end)
          .needsInputs(true)
          .needsOutputs(true)
          .scopes({at::RecordScope::FUNCTION}));
}

ForwardFlopCounter::~ForwardFlopCounter() {
  at::removeCallback(callback_);
  active_counter = nullptr;
}

}  // namespace hetps::model
