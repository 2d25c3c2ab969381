// pitot: what a benchmark source includes.
#pragma once

#include <pitot/axis.hpp>
#include <pitot/benchmark.hpp>
#include <pitot/state.hpp>

#if defined(__HIP__) && __has_include(<pitot/hip.hpp>)
#include <pitot/hip.hpp>
#elif defined(__CUDACC__) && __has_include(<pitot/cuda.hpp>)
#include <pitot/cuda.hpp>
#endif
