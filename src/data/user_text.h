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

// `text` for an error message that quotes it: control bytes and those past ASCII as \xNN, so
// that the message shows them, a NUL does not end it early and a binary file puts nothing into
// the terminal; cut after its first 80 bytes, as a whole binary or 20-MB line would drown the
// message.
inline std::string shown(std::string_view text) {
  constexpr size_t kMostShown = 80;
  std::string out;
  for (char c : text.substr(0, kMostShown)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  if (text.size() > kMostShown) out += fmt::format("... ({} bytes in all)", text.size());
  return out;
}

}  // namespace hetps::data
