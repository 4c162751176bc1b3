// Comma-separated values as the report writes and reads them (RFC 4180): a cell holding a
// comma, a quote or a line break is quoted, its quotes doubled.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace hetps::report {

std::string csv_cell(std::string_view text);

// The cells of one line; quoted cells unquoted. Throws std::invalid_argument when a quoted
// cell is not closed or is followed by anything but a separator.
std::vector<std::string> split_csv_line(std::string_view line);

// A CSV file: its header first, then rows of cells already formatted, each as wide as the
// header. Throws std::runtime_error naming the file when it cannot be written.
class CsvFile {
 public:
  CsvFile(const std::filesystem::path& file, const std::vector<std::string>& header);
  void row(const std::vector<std::string>& cells);
  // Flushes and checks that every row reached the file.
  void close();

 private:
  void write_line(const std::vector<std::string>& cells);

  std::filesystem::path file_;
  std::ofstream out_;
  size_t columns_;
};

}  // namespace hetps::report
