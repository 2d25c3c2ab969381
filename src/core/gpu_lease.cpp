// See gpu_lease.hpp. The shared state is three words per pair in a mapped file; every change is an
// atomic store or compare-exchange; a waiter yields, then polls every 20 us.
#include "core/gpu_lease.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace pitot {

struct GpuLease::Shared {
  std::atomic<std::int32_t> holder;      // slot + 1 of the process holding the GPU; 0: nobody
  std::atomic<std::int32_t> waiting[2];  // a slot waits in acquire()
  std::atomic<std::int32_t> pid[2];      // the slot's process; 0 once it has gone
};
static_assert(std::atomic<std::int32_t>::is_always_lock_free, "the lease needs lock-free words across processes");

namespace {

using Clock = std::chrono::steady_clock;

// Alive and not a zombie (a child the driver has not reaped yet holds nothing).
bool process_alive(std::int32_t pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;  // no /proc: kill's answer stands
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() || (text[close + 2] != 'Z' && text[close + 2] != 'X');
}

}  // namespace

void GpuLease::create(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create the GPU lease " + path + ": " + std::strerror(errno));
  const Shared zero{};  // nobody holds it, nobody waits
  const bool ok = ::write(fd, &zero, sizeof zero) == static_cast<ssize_t>(sizeof zero);
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot write the GPU lease " + path);
}

std::unique_ptr<GpuLease> GpuLease::open(const std::string& spec) {
  const auto colon = spec.rfind(':');
  const std::string slot_text = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (colon == std::string::npos || colon == 0 || (slot_text != "0" && slot_text != "1"))
    throw std::invalid_argument("--gpu-lease takes PATH:SLOT with slot 0 or 1, not '" + spec + "'");
  const std::string path = spec.substr(0, colon);
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open the GPU lease " + path + ": " + std::strerror(errno));
  void* map = ::mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) throw std::runtime_error("cannot map the GPU lease " + path + ": " + std::strerror(errno));
  auto* shared = static_cast<Shared*>(map);
  const int slot = slot_text == "1" ? 1 : 0;
  shared->pid[slot].store(static_cast<std::int32_t>(::getpid()));
  return std::unique_ptr<GpuLease>(new GpuLease(shared, slot));
}

GpuLease::~GpuLease() {
  shared_->waiting[slot_].store(0);
  shared_->pid[slot_].store(0);
  std::int32_t mine = slot_ + 1;
  shared_->holder.compare_exchange_strong(mine, 0);
  ::munmap(shared_, sizeof(Shared));
}

bool GpuLease::other_alive() const { return process_alive(shared_->pid[1 - slot_].load()); }

void GpuLease::acquire() {
  const std::int32_t mine = slot_ + 1, theirs = 2 - slot_;
  if (shared_->holder.load() == mine) return;
  shared_->waiting[slot_].store(1);
  auto checked = Clock::now();
  int polls = 0;
  for (;;) {
    std::int32_t h = shared_->holder.load();
    if (h == mine) break;  // handed over
    if (h == 0 && shared_->holder.compare_exchange_strong(h, mine)) break;
    // A holder that died cannot hand it over: take it (checked every 5 ms, /proc is not free).
    if (h == theirs && Clock::now() - checked > std::chrono::milliseconds(5)) {
      checked = Clock::now();
      if (!other_alive() && shared_->holder.compare_exchange_strong(h, mine)) break;
    }
    // The other's sample is often shorter than a sleep's wake-up (50-100 us): yield first.
    if (++polls < 200) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  shared_->waiting[slot_].store(0);
}

double GpuLease::pass() {
  const auto t0 = Clock::now();
  if (shared_->holder.load() == slot_ + 1) {
    if (!shared_->waiting[1 - slot_].load()) return 0;
    shared_->holder.store(2 - slot_);
  }
  acquire();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void GpuLease::offer() {
  if (shared_->holder.load() == slot_ + 1 && shared_->waiting[1 - slot_].load()) shared_->holder.store(2 - slot_);
}

}  // namespace pitot
