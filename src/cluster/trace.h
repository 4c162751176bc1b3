// Speed traces (`cluster.trace`): a CSV file of per-worker relative speed over time, replayed
// as is. The trace speed multiplies the worker's base speed (`cluster.speeds`).
#pragma once

#include <string>
#include <vector>

#include "cluster/piecewise_constant.h"

namespace hetps::cluster {

// Reads a trace in long format: the header `time,worker,speed`, then one row per change of a
// worker's speed, which holds from `time` (seconds, >= 0) until that worker's next row. Before
// its first row a worker's trace speed is 1; a worker without rows keeps speed 1. Rows of one
// worker come in non-decreasing time; at equal times the later row wins. Rows of different
// workers may interleave. Blank lines are skipped. For example
//   time,worker,speed
//   0,1,0.5
//   30,1,1
// makes worker 1 half as fast for the first 30 seconds.
//
// Returns one function per worker. Throws data::DataError naming the file and, for a bad row,
// its line number and what is wrong (unreadable file, bad header, a field that is not a
// number, a negative time, a speed <= 0, a worker outside [0, workers), time going backwards).
std::vector<PiecewiseConstant> read_trace(const std::string& path, int workers);

// Throws data::DataError when `path` names a directory, a FIFO, a device or a socket: checked
// by read_trace, and before a run starts, as a FIFO would block it after its directory was made.
void refuse_a_trace_that_is_no_file(const std::string& path);

}  // namespace hetps::cluster
