// Writing into an asv results folder the way write_asv does (output/atomic_file.hpp: under
// <dir>/.pitot.lock and by atomic replacement), with failures as InputError (exit code 2).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "output/atomic_file.hpp"

namespace pitot::driver {

class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& results_dir);  // blocks; throws InputError

 private:
  std::optional<pitot::FolderLock> lock_;
};

// Replaces `path` with `text` atomically; throws InputError naming the file.
void replace_file(const std::filesystem::path& path, const std::string& text);

std::string read_file(const std::filesystem::path& path);  // throws InputError

// The last `max_bytes` of a file (the whole file when it is smaller): for logs and streams, whose
// end is what matters. Empty when the file is missing or unreadable; never throws.
std::string read_tail(const std::filesystem::path& path, std::uint64_t max_bytes);

}  // namespace pitot::driver
