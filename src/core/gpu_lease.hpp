// Two processes that share one GPU and take turns on it: pitot ab's paired rounds (docs/compare.md,
// "Paired rounds"). Base and head of one program run at once; each holds the GPU for a point's
// setup and warm-up and hands it over between samples whenever the other waits, so their samples
// alternate and a drift of the card (its clock under a power cap, its temperature) falls on both
// alike instead of on one process of the pair. No GPU work of one overlaps the other's.
//
// The lease is a small file both processes map (the driver creates it). A holder that exits gives
// it up; one that dies holding it is seen by its pid, so the other never waits on a dead process.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace pitot {

class GpuLease {
 public:
  // Creates (or resets) the file of a pair's lease: the driver, before it starts the pair.
  static void create(const std::string& path);
  // "PATH:SLOT", as --gpu-lease takes it (slot 0 or 1). Throws std::invalid_argument on bad
  // text, std::runtime_error when the file cannot be mapped.
  static std::unique_ptr<GpuLease> open(const std::string& spec);
  GpuLease(const GpuLease&) = delete;
  GpuLease& operator=(const GpuLease&) = delete;
  ~GpuLease();  // gives the GPU up for good: the other process never waits for this one again

  // Waits until this process holds the GPU (at once when it does).
  void acquire();
  // Between samples: hands the GPU to the other process when it waits, then waits to have it
  // back. Returns the seconds spent waiting, which are no part of this process's sampling.
  double pass();
  // At the end of a point: hands the GPU to the other process when it waits, without waiting
  // (the next point's acquire() does).
  void offer();

  int slot() const { return slot_; }

 private:
  struct Shared;
  GpuLease(Shared* shared, int slot) : shared_(shared), slot_(slot) {}
  bool other_alive() const;
  Shared* shared_;
  int slot_;
};

}  // namespace pitot
