// Writing into an asv results folder the way write_asv does: under <dir>/.pitot.lock (flock)
// and by atomic replacement (temporary file, fsync, rename), so readers never see half a file.
#pragma once

#include <filesystem>
#include <string>

namespace pitot::driver {

class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& results_dir);  // blocks; throws InputError
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

// Replaces `path` with `text` atomically; throws InputError naming the file.
void replace_file(const std::filesystem::path& path, const std::string& text);

std::string read_file(const std::filesystem::path& path);  // throws InputError

}  // namespace pitot::driver
