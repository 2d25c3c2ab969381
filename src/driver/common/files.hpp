// The driver's one file reader and one file writer. Writing goes the way write_asv does
// (output/atomic_file.hpp: by atomic replacement, under <dir>/.pitot.lock where a folder is
// shared), with failures as InputError (exit code 2).
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

// The whole file, bounded (core/bounded_json.hpp). Throws InputError: "cannot read <what>
// <path>: no such file, or not readable", or that it is too long; `what` ("results file") may be
// empty.
std::string read_file(const std::filesystem::path& path, const std::string& what = "");

// The last `max_bytes` of a file (the whole file when it is smaller): for logs and streams, whose
// end is what matters. Empty when the file is missing or unreadable; never throws.
std::string read_tail(const std::filesystem::path& path, std::uint64_t max_bytes);

}  // namespace pitot::driver
