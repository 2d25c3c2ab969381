// Writing into a results folder so that readers never see half a file and writers never mix:
// a lock on <dir>/.pitot.lock (flock), and replacement by a complete temporary file in the same
// folder (write, fsync, rename, fsync the folder). Used by the asv writer and by the driver.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pitot {

// A lock or a write failed; the message names the file and why. Nothing was replaced.
struct FileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Holds the exclusive lock of a results folder (created when missing) while it lives; blocks
// until another writer releases it. Throws FileError. The first time a process locks a folder,
// it removes the temporary files (".NAME.tmp-PID-N") that writers no longer alive left in the
// folder and its subfolders (a driver killed by SIGKILL between write and rename): under the
// lock no live writer of this host can be between the two. A PID that is alive is left alone.
class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& dir);
  ~FolderLock();  // closing the file releases the flock
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

// Replaces every file with its text, all or none: each temporary file is complete before the
// first rename. Throws FileError (and leaves no temporary file behind).
void replace_files(const std::vector<std::pair<std::filesystem::path, std::string>>& files);

// One file; its folder is created when missing.
void replace_file(const std::filesystem::path& path, const std::string& text);

// A temporary file that a library wrote whole (pitot profile's zip, by libzip) put in place the
// same way: fsync it, rename it over `path`, fsync the folder. Throws FileError, and then removes
// the temporary file.
void commit_file(const std::filesystem::path& temp, const std::filesystem::path& path);

}  // namespace pitot
