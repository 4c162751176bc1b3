// Counts the floating-point operations of the dense layers a forward pass runs, by observing
// libtorch's operator calls: it works for any module, built-in or registered by a user,
// without knowing its structure.
//
//   double flops;
//   {
//     ForwardFlopCounter counter;
//     module.forward(x);
//     flops = counter.flops();
//   }
#pragma once

#include <cstdint>

namespace hetps::model {

// Counts, on the constructing thread while it lives, 2·(multiply-adds) of every convolution,
// linear layer and matrix product. Element-wise work (activations, norms, pooling, residual
// additions, biases) is left out: it is a few percent of the dense layers' work, and leaving
// it out keeps the count equal to the textbook formulas (Linear: 2·in·out per sample;
// Conv: 2·k²·cin·cout·Hout·Wout per sample). An operator called from inside a counted one
// (a linear layer's matrix product) is not counted twice. Counters do not nest.
class ForwardFlopCounter {
 public:
  ForwardFlopCounter();
  ~ForwardFlopCounter();
  ForwardFlopCounter(const ForwardFlopCounter&) = delete;
  ForwardFlopCounter& operator=(const ForwardFlopCounter&) = delete;

  double flops() const { return flops_; }

 private:
  friend struct FlopObserver;
  uint64_t callback_ = 0;
  double flops_ = 0;
  int depth_ = 0;  // counted operators now running: only the outermost one counts
};

}  // namespace hetps::model
