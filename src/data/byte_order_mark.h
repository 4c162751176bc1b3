// Spreadsheets and Windows editors often begin a UTF-8 text file with a byte order mark, which
// belongs to no line: the CSV files a user may have edited (a trace, a run's timeline) drop it.
#pragma once

#include <string>
#include <string_view>

namespace hetps::data {

inline void strip_byte_order_mark(std::string& first_line) {
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (first_line.starts_with(kByteOrderMark)) first_line.erase(0, kByteOrderMark.size());
}

}  // namespace hetps::data
