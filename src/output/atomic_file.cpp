// See atomic_file.hpp.
#include "output/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
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

// The writer's PID in ".NAME.tmp-PID-N", or 0 when `name` is not one of our temporary files.
pid_t temp_file_writer(const std::string& name) {
  if (name.size() < 2 || name[0] != '.') return 0;
  const auto at = name.rfind(".tmp-");
  if (at == std::string::npos) return 0;
  const std::string rest = name.substr(at + 5);  // PID-N
  const auto dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos || dash + 1 == rest.size()) return 0;
  for (std::size_t i = 0; i < rest.size(); ++i)
    if (i != dash && (rest[i] < '0' || rest[i] > '9')) return 0;
  if (dash > 9) return 0;
  return static_cast<pid_t>(std::stol(rest.substr(0, dash)));
}

bool process_gone(pid_t pid) { return pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH; }

void remove_stale_temp_files(const fs::path& dir) {
  static std::mutex mutex;
  static std::set<fs::path> done;  // once per folder and process: a write per point stays cheap
  {
    std::lock_guard lock(mutex);
    if (!done.insert(fs::absolute(dir)).second) return;
  }
  std::error_code ec;
  auto sweep = [](const fs::path& folder) {
    std::error_code e;
    for (const auto& entry : fs::directory_iterator(folder, e)) {
      const std::string name = entry.path().filename().string();
      const pid_t pid = temp_file_writer(name);
      if (pid > 0 && pid != ::getpid() && process_gone(pid)) ::unlink(entry.path().c_str());
    }
  };
  sweep(dir);
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_directory(ec) && !entry.is_symlink(ec)) sweep(entry.path());
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
  remove_stale_temp_files(dir);
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

void commit_file(const fs::path& temp, const fs::path& path) {
  const auto fail = [&](const std::string& what, int err) {
    ::unlink(temp.c_str());
    throw FileError(what + ": " + std::strerror(err));
  };
  const int fd = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open " + temp.string(), errno);
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    fail("cannot write " + temp.string(), err);
  }
  ::close(fd);
  if (::rename(temp.c_str(), path.c_str()) != 0) fail("cannot replace " + path.string(), errno);
  fsync_dir(path.parent_path().empty() ? fs::path(".") : path.parent_path());
}

}  // namespace pitot
