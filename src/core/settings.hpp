// The device settings a user chooses by name (--timing, --clock): their enums and the one table
// of their names, used from the flag to the JSON. A program (src/program/options.cpp) and
// `pitot run` (src/driver/run/run.cpp) parse them at their command lines with the same checks
// and messages (src/program/cli_hints.hpp); past that edge they are never strings again.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pitot {

// --timing: how GPU launches are timed. Cold flushes the caches before every launch, hot runs
// them back to back, graph replays a captured CUDA/HIP graph (docs/cuda-backend.md).
enum class Timing { Cold, Hot, Graph };
// --clock: what a cold sample's value is read from: events around each launch, or the device's
// own timestamps of the work (the kernel clock, CUPTI). Not given: the backend's default for the
// mode (src/gpu/sampler.hpp, kDefaultColdClock).
enum class GpuClock { Events, Kernel };

// The names, in the order --help lists them: {"cold", "hot", "graph"}, {"kernel", "events"}.
const std::vector<std::string>& timing_names();
const std::vector<std::string>& clock_names();
const char* name_of(Timing timing);
const char* name_of(GpuClock clock);
// The name of an asked clock in a program's --json config: "default" when none was asked.
const char* name_of(std::optional<GpuClock> clock);
// nullopt for a name that is not in the table.
std::optional<Timing> timing_from_name(std::string_view name);
std::optional<GpuClock> clock_from_name(std::string_view name);

// The suffix of the asv env of a timing mode: "" for cold (the default), "-hot", "-graph", so
// hot or graph rows never merge into the cold rows of the same benchmark.
std::string timing_env_suffix(Timing timing);

// What is wrong with this pair of settings, in words ("" when nothing): the kernel clock times
// cold launches only. Both command lines refuse the pair with this message.
std::string device_settings_problem(Timing timing, std::optional<GpuClock> clock);

// --shard k/N: the k-th (from 1) of N deterministic shares of the points; nullopt unless the text
// is k/N with 1 <= k <= N. Both command lines refuse other text with kShardHelp.
std::optional<std::pair<int, int>> shard_from_text(std::string_view text);
inline constexpr const char* kShardHelp = "write k/N with 1 <= k <= N, e.g. 2/4";

}  // namespace pitot
