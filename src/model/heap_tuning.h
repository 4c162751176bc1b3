// glibc's malloc, tuned for libtorch's training steps (called once, first thing, by main_entry).
//
// Every backward pass leaves each weight's gradient in a fresh tensor (hundreds of kB for the
// MLP's first layer), freed again by the next step. With glibc's defaults the heap grows for it
// and is trimmed back after it, over and over, and each regrowth faults its pages in anew. On
// this project's 2-core VM that made an MLP step take 0.92-1.13 ms against 0.52-0.58 ms with the
// heap kept (the threads engine's calibration, 5 runs each), and a worker's steps sped up for
// seconds into a run as the heap settled: the calibrated padding of slow workers and the first
// seconds of every time to target were measured on the slow phase.
#pragma once

namespace hetps::model {

// Keeps freed memory in the heap for reuse (glibc only; elsewhere it does nothing). A user who
// tunes malloc through the environment (MALLOC_*_ or GLIBC_TUNABLES) keeps those settings.
// Returns whether the settings were changed.
bool keep_freed_memory_for_reuse();

}  // namespace hetps::model
