#include "driver/run/ranked_child.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "driver/common/sandbox.hpp"

namespace pitot::driver::run {
namespace {

// A port nothing listens on now: the kernel's pick for a socket bound to port 0 on 127.0.0.1.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof a;
  const bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) == 0;
  if (fd >= 0) ::close(fd);
  if (!ok) throw std::runtime_error("no free port on 127.0.0.1 for the ranks to meet");
  return ntohs(a.sin_port);
}

// After rank 0 ends, the others learn it from its closed socket and end too; this long at most.
constexpr auto kOthersGrace = std::chrono::seconds(3);

class RankedChildren final : public ChildProcess {
 public:
  RankedChildren(const std::vector<std::string>& argv, int ranks, bool gpus) {
    // The fence unshares the network: ranks in it could not meet.
    if (!children_fence().empty())
      throw std::runtime_error("a multi-rank program cannot run fenced (--sandbox): its ranks meet over TCP on 127.0.0.1");
    const int port = free_port();
    for (int r = 0; r < ranks; ++r) {
      ChildSpec spec;
      spec.argv = argv;
      spec.result_channel = r == 0;  // the driver reads rank 0 alone; the others are silent
      spec.env = {fmt::format("RANK={}", r), fmt::format("LOCAL_RANK={}", r), fmt::format("WORLD_SIZE={}", ranks),
                  "MASTER_ADDR=127.0.0.1", fmt::format("MASTER_PORT={}", port)};
      if (gpus) spec.env.push_back(fmt::format("CUDA_VISIBLE_DEVICES={}", r));
      children_.push_back(std::make_unique<Child>(spec));  // a failed start ends the others (~Child)
    }
  }

  std::vector<std::string> wait(std::chrono::milliseconds timeout) override {
    std::vector<std::string> lines = children_[0]->wait(timeout);
    for (std::size_t r = 1; r < children_.size(); ++r)
      if (children_[r]->running()) (void)children_[r]->wait(std::chrono::milliseconds(0));  // drain their pipes
    if (!children_[0]->running()) {
      if (!rank0_ended_) rank0_ended_ = std::chrono::steady_clock::now();
      if (std::chrono::steady_clock::now() - *rank0_ended_ > kOthersGrace) kill_group();
    }
    return lines;
  }
  bool running() const override {
    return std::any_of(children_.begin(), children_.end(), [](const auto& c) { return c->running(); });
  }
  const ChildEnd& end() const override { return children_[0]->end(); }
  void kill_group() override {
    for (auto& c : children_)
      if (c->running()) c->kill_group();
  }
  bool line_overflow() const override { return children_[0]->line_overflow(); }
  // Rank 0's stderr, then each other rank's that said anything, named (a crashed rank says why).
  const std::string& stderr_text() const override {
    err_ = children_[0]->stderr_text();
    for (std::size_t r = 1; r < children_.size(); ++r) {
      const Child& c = *children_[r];
      std::string said = tail_lines(c.stderr_text(), 1000);
      if (!c.running() && !(c.end().exited && c.end().code == 0)) said += (said.empty() ? "" : "\n") + c.end().describe();
      if (!said.empty()) err_ += fmt::format("\n[rank {}] {}", r, said);
    }
    return err_;
  }

 private:
  std::vector<std::unique_ptr<Child>> children_;
  std::optional<std::chrono::steady_clock::time_point> rank0_ended_;
  mutable std::string err_;
};

}  // namespace

int program_ranks(int requested, const ProgramInfo& program) {
  const bool multi = std::any_of(program.benchmarks.begin(), program.benchmarks.end(),
                                 [](const BenchmarkInfo& b) { return b.multi_rank; });
  if (!multi) return 1;
  return requested > 0 ? requested : std::max(1, program.list.device_count);
}

StartChild start_ranked_children(int ranks, bool gpus) {
  return [ranks, gpus](const std::vector<std::string>& argv) -> std::unique_ptr<ChildProcess> {
    return std::make_unique<RankedChildren>(argv, ranks, gpus);
  };
}

}  // namespace pitot::driver::run
