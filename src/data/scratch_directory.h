// A fresh, uniquely named directory under the system's temp directory, removed with everything
// in it when the object goes away.
//
//   ScratchDirectory work("hetps-fetch");
//   run_something_in(work.path());
#pragma once

#include <filesystem>
#include <string>

namespace hetps::data {

class ScratchDirectory {
 public:
  // Throws DataError when the directory cannot be created.
  explicit ScratchDirectory(const std::string& prefix);
  ~ScratchDirectory();

  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace hetps::data
