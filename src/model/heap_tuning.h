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

#include <array>

namespace hetps::model {

// Where a user tunes glibc's malloc: these variables (GLIBC_TUNABLES only where it names a
// `glibc.malloc.` tunable).
inline constexpr std::array<const char*, 6> kMallocEnvironment = {
    "MALLOC_TOP_PAD_",  "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_",
    "MALLOC_MMAP_MAX_", "MALLOC_ARENA_MAX",       "GLIBC_TUNABLES"};

// Keeps freed memory in the heap for reuse (glibc only; elsewhere it does nothing). A user who
// tunes malloc through the environment (kMallocEnvironment) keeps those settings.
// Returns whether the settings were changed.
bool keep_freed_memory_for_reuse();

}  // namespace hetps::model
