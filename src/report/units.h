// Byte counts as people read them, in the report's table and the compare command's alike.
#pragma once

#include <string>

namespace hetps::report {

// Decimal units (1 kB = 1000 B), two decimals above a byte: "59.26 MB", "512 B".
std::string format_bytes(double bytes);

}  // namespace hetps::report
