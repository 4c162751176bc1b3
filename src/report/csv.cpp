#include "report/csv.h"

#include <stdexcept>

#include <fmt/format.h>

#include "data/user_text.h"

namespace hetps::report {

std::string csv_cell(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> cells(1);
  size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ',') {
      cells.emplace_back();
      ++i;
    } else if (line[i] == '"' && cells.back().empty()) {
      // A quoted cell runs to the next quote not doubled.
      for (++i;; ++i) {
        if (i >= line.size()) throw std::invalid_argument("a quoted cell is not closed");
        if (line[i] != '"') {
          cells.back() += line[i];
        } else if (i + 1 < line.size() && line[i + 1] == '"') {
          cells.back() += '"';
          ++i;
        } else {
          break;
        }
      }
      ++i;
      if (i < line.size() && line[i] != ',') {
        throw std::invalid_argument(
            fmt::format("a quoted cell is followed by '{}' instead of a comma",
                        data::shown(line.substr(i, 1))));
      }
    } else {
      cells.back() += line[i++];
    }
  }
  return cells;
}

CsvFile::CsvFile(const std::filesystem::path& file, const std::vector<std::string>& header)
    : file_(file), out_(file), columns_(header.size()) {
  write_line(header);
}

void CsvFile::row(const std::vector<std::string>& cells) {
  if (cells.size() != columns_) {
    throw std::logic_error(fmt::format("{}: a row of {} cells under a header of {}", file_.string(),
                                       cells.size(), columns_));
  }
  write_line(cells);
}

void CsvFile::close() {
  out_.flush();
  if (!out_) throw std::runtime_error(fmt::format("cannot write {}", file_.string()));
  out_.close();
}

void CsvFile::write_line(const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) out_ << (i > 0 ? "," : "") << csv_cell(cells[i]);
  out_ << '\n';
}

}  // namespace hetps::report
