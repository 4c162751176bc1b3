#include "cli/program_name.h"

#include <filesystem>

namespace hetps::cli {
namespace {

std::string& name() {
  static std::string program = "hetps";
  return program;
}

}  // namespace

void set_program_name(const char* argv0) {
  const std::string file = argv0 == nullptr ? "" : std::filesystem::path(argv0).filename().string();
  name() = file.empty() ? "hetps" : file;
}

const std::string& program_name() { return name(); }

}  // namespace hetps::cli
