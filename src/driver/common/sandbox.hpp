// The fence around benchmark programs (pitot run / pitot ab --sandbox, on by default under
// --untrusted; docs/untrusted.md, "The fence"): each program runs under bubblewrap (bwrap), a
// well-kept tool, not a home-made sandbox. No network, the file system read-only except a fresh
// scratch folder of its own (removed after it), /dev as the host's (GPU device nodes), its own
// /proc, /dev/shm and /run, no capabilities, killed with its parent, in a session of its own.
// Every Child (driver/common/child.hpp) started after fence_children() is fenced: the listing
// of the programs too, which already runs their code.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pitot::driver {

// --sandbox: off, auto (fence when this machine can, else say why not and run), require (exit 2
// when it cannot).
enum class SandboxMode { Off, Auto, Require };
const std::vector<std::pair<std::string, SandboxMode>>& sandbox_modes();

// Whether bwrap can fence a program on this machine: it is found on PATH, and `bwrap <the fence>
// -- true` runs (containers often forbid the user namespaces it needs).
struct SandboxProbe {
  std::string bwrap;   // its path; empty when it cannot fence
  std::string reason;  // why it cannot ("" when it can)
};
SandboxProbe probe_sandbox();

// The command line that runs `argv` fenced by `bwrap`, `scratch` its one writable folder.
std::vector<std::string> fenced_argv(const std::string& bwrap, const std::string& scratch,
                                     const std::vector<std::string>& argv);
// What a fenced program finds in its environment: TMPDIR, XDG_CACHE_HOME, TRITON_CACHE_DIR and
// PITOT_SCRATCH_DIR in its scratch folder ("KEY=value" each).
std::vector<std::string> fenced_environment(const std::string& scratch);

// A fresh folder for one fenced program's writes, under $TMPDIR (or /tmp); removed with all it
// holds when this goes. Throws std::runtime_error saying why it cannot be made.
class ScratchFolder {
 public:
  ScratchFolder();
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// From now on every Child runs fenced by `bwrap` (empty: none). Called once per run, before the
// programs are listed and before any thread starts them.
void fence_children(std::string bwrap);
const std::string& children_fence();

// The run's decision (pitot run, pitot ab): `mode` as given, or auto under --untrusted and off
// otherwise. Fences the children when it can, says so in one line on stderr ("pitot run: sandbox:
// ..."), and returns what the run report's "sandbox" key says: "bwrap (...)", "none (why)", "off
// (--sandbox off)", or "" when no sandbox was asked for (no --sandbox, no --untrusted). Throws
// InputError (exit 2) with the reason when `mode` is Require and this machine cannot fence.
std::string settle_sandbox(const std::optional<SandboxMode>& mode, bool untrusted, const std::string& command);

}  // namespace pitot::driver
