// See atomic_file.hpp.
#include "output/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace pitot {

namespace {

void fsync_dir(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// A file written next to its target; rename() puts it in place.
struct PendingFile {
  fs::path target, temp;
};

PendingFile write_temp(const fs::path& target, const std::string& text) {
  static std::atomic<unsigned> counter{0};
  std::ostringstream name;
  name << "." << target.filename().string() << ".tmp-" << ::getpid() << "-" << counter++;
  PendingFile f{target, target.parent_path() / name.str()};
  int fd = ::open(f.temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw FileError("cannot create " + f.temp.string() + ": " + std::strerror(errno));
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::close(fd);
      ::unlink(f.temp.c_str());
      throw FileError("cannot write " + f.temp.string() + ": " + std::strerror(err));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(f.temp.c_str());
    throw FileError("cannot write " + f.temp.string() + ": " + std::strerror(err));
  }
  return f;
}

}  // namespace

FolderLock::FolderLock(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);  // a failure shows in the open below
  const fs::path path = dir / ".pitot.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) throw FileError("cannot open the lock file " + path.string() + ": " + std::strerror(errno));
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd_);
    throw FileError("cannot lock " + path.string() + ": " + std::strerror(err));
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);
}

void replace_files(const std::vector<std::pair<fs::path, std::string>>& files) {
  std::vector<PendingFile> pending;
  try {
    for (const auto& [path, text] : files) pending.push_back(write_temp(path, text));
  } catch (...) {
    for (const auto& f : pending) ::unlink(f.temp.c_str());
    throw;
  }
  std::set<fs::path> dirs;
  for (const auto& f : pending) {
    if (::rename(f.temp.c_str(), f.target.c_str()) != 0) {
      int err = errno;
      for (const auto& g : pending) ::unlink(g.temp.c_str());
      throw FileError("cannot replace " + f.target.string() + ": " + std::strerror(err));
    }
    dirs.insert(f.target.parent_path());
  }
  for (const auto& d : dirs) fsync_dir(d.empty() ? fs::path(".") : d);
}

void replace_file(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);  // a failure shows when the file is written
  replace_files({{path, text}});
}

}  // namespace pitot
