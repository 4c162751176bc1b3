// What the report's HTML is made of: text escaped for it, and images embedded in it so that
// report.html opens from disk with no other file, server or network.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace hetps::report {

// `text` safe inside an element and inside a quoted attribute: & < > " ' escaped.
std::string escape_html(std::string_view text);

// `bytes` as base64 (RFC 4648, padded).
std::string base64(std::string_view bytes);

// The SVG file as a `data:image/svg+xml;base64,...` URI for an <img src>. Throws
// std::runtime_error naming the file when it cannot be read.
std::string svg_data_uri(const std::filesystem::path& file);

}  // namespace hetps::report
