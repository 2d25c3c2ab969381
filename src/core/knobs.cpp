// The pass-through knobs, declared once (knobs.hpp).
#include "core/knobs.hpp"

#include <array>

namespace pitot {
namespace {

using K = KnobBounds::Kind;
constexpr KnobBounds kPositive{K::Positive}, kNonNegative{K::NonNegative};

// A graph of a million launches takes long to capture and holds a million nodes; the automatic
// choice (0) captures at most 1,000 on CUDA and 256 on HIP (src/cuda, src/hip sampler.cpp).
constexpr double kMaxGraphLaunches = 1000000;

const std::array<Knob, 15> kKnobs{{
    {"--warmup", "Seconds of untimed warm-up per point", kNonNegative, &RunConfig::warmup_seconds},
    {"--min-samples", "Samples before the interval rule may stop a point", {K::Integer, 2, 100000000}, &RunConfig::min_samples},
    {"--min-time", "Seconds of sampling before the interval rule may stop a point", kNonNegative, &RunConfig::min_seconds},
    {"--max-time", "A point's time limit for sampling, seconds", kPositive, &RunConfig::max_seconds},
    {"--max-samples", "Stop a point after this many samples", {K::Integer, 1, 100000000}, &RunConfig::max_samples},
    {"--ci-target", "Stop when the 99% interval of the median is narrower than this fraction of it", kPositive, &RunConfig::ci_target},
    {"--batch-time", "Seconds a point samples per turn of the interleaved schedule", kPositive, &RunConfig::batch_seconds},
    {"--min-sample-time", "CPU: loop the work until one sample lasts this long", kNonNegative, &RunConfig::min_sample_seconds},
    {"--seed", "Seed of the shuffled point order", {K::Seed}, &RunConfig::seed},
    {"--graph-launches", "Launches captured per graph in graph mode (0: automatic)", {K::Integer, 0, kMaxGraphLaunches}, &DeviceOptions::graph_launches},
    {"--throttle-ratio", "Discard samples whose SM clock is below this fraction of nominal", {K::Within, 0.0, 1.0}, &DeviceOptions::throttle_ratio},
    {"--energy",
     "GPU: after each point, measure joules per call over at least this many seconds of the work back to back (0: "
     "off; points then run one after another, and the card cools back to within 2 C after each phase)",
     {K::Within, 0.0, 600.0}, &DeviceOptions::energy_seconds},
    {"--cool-to", "GPU: before each point, wait until the card is at or under this temperature, degrees C (0: no wait)", {K::Within, 0.0, 150.0}, &DeviceOptions::cool_to_c},
    {"--cool-timeout", "GPU: the longest wait of --cool-to, seconds", {K::Within, 0.0, 3600.0}, &DeviceOptions::cool_timeout_seconds},
    {"--untrusted",
     "Time code that may cheat (docs/untrusted.md): self-reported times refused, every sample waits for the whole "
     "device, impossible speeds and persisting-L2 limits refused",
     {K::Flag}, &DeviceOptions::untrusted},
}};

}  // namespace

std::span<const Knob> knobs() { return kKnobs; }

}  // namespace pitot
