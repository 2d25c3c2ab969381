// Timing one point across the ranks of a multi-rank world (docs/ranks.md): every decision that
// sets how often the work runs is rank 0's, each sample is preceded by a barrier outside the
// timed span, and the sample kept is the slowest rank's.
#pragma once

#include <pitot/state.hpp>

#include "core/point_run.hpp"

namespace pitot::detail {

// Warm-up, sampling (in turns, as run_schedule) and the sampler's finish, on every rank of
// run.config.group; the samples, their spread over the ranks and the stop reason go to run.result.
void run_ranked(PointRun& run, Sampler& sampler);

// The ranks' facts of a finished point, as tracks and backend_info "ranks" (engine.cpp's finalize).
void ranked_tracks(PointRun& run);

}  // namespace pitot::detail
