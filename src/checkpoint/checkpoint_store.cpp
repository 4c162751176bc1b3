#include "checkpoint/checkpoint_store.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checkpoint/checkpoint_error.h"
#include "checkpoint/checkpoint_file.h"

namespace hetps::checkpoint {

namespace {

constexpr std::string_view kPrefix = "checkpoint-";
constexpr std::string_view kSuffix = ".ckpt";

}  // namespace

std::optional<int64_t> checkpoint_number(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  if (!name.starts_with(kPrefix) || !name.ends_with(kSuffix)) return std::nullopt;
  const std::string_view digits =
      std::string_view(name).substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  int64_t number = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (error != std::errc() || end != digits.data() + digits.size() || number < 1) {
    return std::nullopt;
  }
  return number;
}

CheckpointStore::CheckpointStore(std::filesystem::path dir, int keep)
    : dir_(std::move(dir)), keep_(keep) {
  if (keep_ < 1) throw std::invalid_argument("CheckpointStore: keep must be at least 1");
}

std::vector<std::filesystem::path> CheckpointStore::files() const {
  std::vector<std::pair<int64_t, std::filesystem::path>> numbered;
  std::error_code missing;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, missing)) {
    if (const auto number = checkpoint_number(entry.path()))
      numbered.emplace_back(*number, entry.path());
  }
  std::ranges::sort(numbered);
  std::vector<std::filesystem::path> files;
  for (auto& [number, file] : numbered) files.push_back(std::move(file));
  return files;
}

std::filesystem::path CheckpointStore::save(const nlohmann::json& state) {
  std::vector<std::filesystem::path> present = files();
  if (!next_number_) next_number_ = present.empty() ? 1 : *checkpoint_number(present.back()) + 1;
  const std::filesystem::path file =
      dir_ / fmt::format("{}{}{}", kPrefix, (*next_number_)++, kSuffix);
  write_checkpoint(file, state);
  remove_unfinished_writes();
  present.push_back(file);
  const auto beyond_keep = static_cast<std::ptrdiff_t>(present.size()) - keep_;
  for (std::ptrdiff_t i = 0; i < beyond_keep; ++i) {
    std::error_code ignored;  // an old checkpoint left behind costs disk, not correctness
    std::filesystem::remove(present[static_cast<size_t>(i)], ignored);
  }
  return file;
}

void CheckpointStore::remove_unfinished_writes() const {
  std::error_code ignored;  // what cannot be listed or removed costs disk, not correctness
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(kPrefix) &&
        name.find(std::string(kSuffix) + ".tmp-") != std::string::npos) {
      std::filesystem::remove(entry.path(), ignored);
    }
  }
}

CheckpointStore::Found CheckpointStore::load_latest(
    const std::function<void(const std::string&)>& refused) const {
  const std::vector<std::filesystem::path> present = files();
  if (present.empty()) {
    throw CheckpointError(fmt::format("no checkpoint in {}", dir_.string()));
  }
  std::vector<std::string> refusals;
  for (auto file = present.rbegin(); file != present.rend(); ++file) {
    try {
      return Found{*file, read_checkpoint(*file)};
    } catch (const CheckpointError& error) {
      refusals.emplace_back(error.what());
      if (std::next(file) != present.rend()) refused(error.what());
    }
  }
  throw CheckpointError(fmt::format("no checkpoint in {} reads back whole: {}", dir_.string(),
                                    fmt::join(refusals, "; ")));
}

}  // namespace hetps::checkpoint
