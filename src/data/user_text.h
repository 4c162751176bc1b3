// What the readers of text files a user may have edited (a trace, a run's timeline) share.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace hetps::data {

// Spreadsheets and Windows editors often begin a UTF-8 text file with a byte order mark, which
// belongs to no line.
inline void strip_byte_order_mark(std::string& first_line) {
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (first_line.starts_with(kByteOrderMark)) first_line.erase(0, kByteOrderMark.size());
}

// `text` for an error message that quotes it: control bytes as \xNN, so that the message shows
// them, and a NUL does not end it early.
inline std::string shown(std::string_view text) {
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace hetps::data
