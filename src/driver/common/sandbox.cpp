// See sandbox.hpp.
#include "driver/common/sandbox.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

#include <fmt/format.h>

#include "driver/common/errors.hpp"
#include "process/process.hpp"

namespace fs = std::filesystem;

namespace pitot::driver {

namespace {

std::string& fence() {
  static std::string bwrap;
  return bwrap;
}

// The first line of what a tool said, without its trailing blanks.
std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

// Makes a folder and everything under it writable by its owner, so that remove_all can empty a
// folder the program made read-only.
void make_writable(const fs::path& root) {
  std::error_code ec;
  fs::permissions(root, fs::perms::owner_all, fs::perm_options::add, ec);
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
}

}  // namespace

const std::vector<std::pair<std::string, SandboxMode>>& sandbox_modes() {
  static const std::vector<std::pair<std::string, SandboxMode>> modes = {
      {"off", SandboxMode::Off}, {"auto", SandboxMode::Auto}, {"require", SandboxMode::Require}};
  return modes;
}

std::vector<std::string> fenced_argv(const std::string& bwrap, const std::string& scratch,
                                     const std::vector<std::string>& argv) {
  std::vector<std::string> out = {
      bwrap,
      "--unshare-net", "--unshare-pid", "--unshare-ipc",  // loopback only; its own processes and IPC
      "--ro-bind", "/", "/",                              // every file read-only...
      "--dev-bind", "/dev", "/dev",                       // ...but the device nodes (GPUs) usable
      "--tmpfs", "/dev/shm",                              // shared memory of its own
      "--tmpfs", "/run",                                  // no host sockets (docker, D-Bus) from /run
      "--proc", "/proc",
      "--bind", scratch, scratch,                         // its one writable folder
      "--cap-drop", "ALL",                                // run by root, it could remount / writable
      "--die-with-parent", "--new-session",
      "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

std::vector<std::string> fenced_environment(const std::string& scratch) {
  return {"TMPDIR=" + scratch, "XDG_CACHE_HOME=" + scratch + "/.cache", "TRITON_CACHE_DIR=" + scratch + "/.triton",
          "PITOT_SCRATCH_DIR=" + scratch};
}

ScratchFolder::ScratchFolder() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = (tmp && *tmp == '/' ? std::string(tmp) : std::string("/tmp")) + "/pitot-scratch-XXXXXX";
  if (!mkdtemp(pattern.data()))
    throw std::runtime_error(fmt::format("cannot make a scratch folder for the sandbox ({}): {}; set TMPDIR to a "
                                         "writable folder",
                                         pattern, std::strerror(errno)));
  path_ = pattern;
}

ScratchFolder::~ScratchFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);
  if (!ec) return;
  make_writable(path_);
  fs::remove_all(path_, ec);
  if (ec) std::fprintf(stderr, "pitot: note: cannot remove the scratch folder %s: %s\n", path_.c_str(), ec.message().c_str());
}

SandboxProbe probe_sandbox() {
  SandboxProbe probe;
  const fs::path bwrap = find_on_path("bwrap");
  if (bwrap.empty()) {
    probe.reason = "bwrap is not installed (no bwrap on PATH): install bubblewrap (apt-get install bubblewrap, dnf "
                   "install bubblewrap)";
    return probe;
  }
  fs::path true_path = find_on_path("true");
  if (true_path.empty()) true_path = "/bin/true";
  try {
    ScratchFolder scratch;
    const Captured c = run_captured(fenced_argv(bwrap.string(), scratch.path(), {true_path.string()}), 30);
    if (!c.end.ok()) {
      const std::string said = first_line(c.err.empty() ? c.end.describe() : c.err);
      probe.reason = fmt::format(
          "{} cannot fence a program on this machine ({}): user namespaces are off or forbidden here (a container "
          "often forbids them; allow them, e.g. sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces "
          "> 0, or a seccomp/AppArmor profile that permits them), or run pitot in a sandbox of your own",
          bwrap.string(), said);
      return probe;
    }
  } catch (const std::exception& e) {
    probe.reason = e.what();
    return probe;
  }
  probe.bwrap = bwrap.string();
  return probe;
}

void fence_children(std::string bwrap) { fence() = std::move(bwrap); }

const std::string& children_fence() { return fence(); }

std::string settle_sandbox(const std::optional<SandboxMode>& mode, bool untrusted, const std::string& command) {
  const SandboxMode m = mode.value_or(untrusted ? SandboxMode::Auto : SandboxMode::Off);
  const std::string who = "pitot " + command;
  if (m == SandboxMode::Off) {
    fence_children("");
    if (!untrusted) return "";
    std::fprintf(stderr, "%s: sandbox: off (--sandbox off): the programs run with your rights, network and files\n",
                 who.c_str());
    return "off (--sandbox off)";
  }
  const SandboxProbe probe = probe_sandbox();
  if (probe.bwrap.empty()) {
    if (m == SandboxMode::Require)
      throw InputError("--sandbox require: no sandbox on this machine: " + probe.reason +
                       ". Nothing ran; --sandbox auto runs without the fence and says so");
    fence_children("");
    std::fprintf(stderr, "%s: sandbox: none (%s)\n", who.c_str(), probe.reason.c_str());
    return "none (" + probe.reason + ")";
  }
  fence_children(probe.bwrap);
  const std::string said = "bwrap (no network; files read-only but a scratch folder per process)";
  std::fprintf(stderr, "%s: sandbox: %s\n", who.c_str(), said.c_str());
  return said;
}

}  // namespace pitot::driver
