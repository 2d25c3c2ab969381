// NCCL collectives across the ranks (issue 36, docs/ranks.md): all-reduce, all-gather,
// reduce-scatter and all-to-all (grouped ncclSend/ncclRecv) of float sums over message sizes,
// timed on the device. `bytes` is nccl-tests' size: the whole buffer a rank holds (all-gather's
// output, reduce-scatter's input). Algorithm bandwidth is bytes / time (gbytes_per_second), bus
// bandwidth that times nccl-tests' factor (bus_gbytes_per_second; none for one rank, where no
// byte crosses a bus). Before timing, one untimed call is checked against the expected sums.
#include <pitot/pitot.hpp>
#include <pitot/nccl.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

__global__ void fill(float* p, std::int64_t n, float value) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) p[i] = value;
}

// nccl-tests' bus factors: what each rank's link carries per byte of the operation.
double bus_factor(const std::string& op, int n) {
  if (n <= 1) return 0;
  const double f = static_cast<double>(n - 1) / n;
  return op == "all_reduce" ? 2 * f : f;
}

struct Buffers {
  float* send = nullptr;
  float* recv = nullptr;
  ~Buffers() {
    cudaFree(send);
    cudaFree(recv);
  }
};

// One call of `op`: `count` floats a rank holds (divisible by n), `chunk` = count / n.
void run_op(const std::string& op, const Buffers& b, std::int64_t count, int n, ncclComm_t comm, cudaStream_t stream) {
  const std::int64_t chunk = count / n;
  if (op == "all_reduce") PITOT_NCCL_CHECK(ncclAllReduce(b.send, b.recv, count, ncclFloat, ncclSum, comm, stream));
  else if (op == "all_gather") PITOT_NCCL_CHECK(ncclAllGather(b.send, b.recv, chunk, ncclFloat, comm, stream));
  else if (op == "reduce_scatter") PITOT_NCCL_CHECK(ncclReduceScatter(b.send, b.recv, chunk, ncclFloat, ncclSum, comm, stream));
  else {  // all_to_all: chunk p of the send buffer to rank p, rank p's chunk for us into chunk p
    PITOT_NCCL_CHECK(ncclGroupStart());
    for (int p = 0; p < n; ++p) {
      PITOT_NCCL_CHECK(ncclSend(b.send + p * chunk, chunk, ncclFloat, p, comm, stream));
      PITOT_NCCL_CHECK(ncclRecv(b.recv + p * chunk, chunk, ncclFloat, p, comm, stream));
    }
    PITOT_NCCL_CHECK(ncclGroupEnd());
  }
}

// Every rank's send buffer holds rank + 1: the first element of each received chunk must be the
// sum over ranks (all-reduce, reduce-scatter: n(n+1)/2) or the sending rank's value (gather, to-all).
void check_once(const std::string& op, const Buffers& b, std::int64_t count, int n, ncclComm_t comm) {
  run_op(op, b, count, n, comm, nullptr);
  PITOT_CUDA_CHECK(cudaDeviceSynchronize());
  const std::int64_t chunk = count / n;
  const std::int64_t chunks = op == "reduce_scatter" ? 1 : op == "all_reduce" ? 1 : n;
  for (std::int64_t p = 0; p < chunks; ++p) {
    float got = 0;
    PITOT_CUDA_CHECK(cudaMemcpy(&got, b.recv + p * chunk, sizeof got, cudaMemcpyDeviceToHost));
    const bool summed = op == "all_reduce" || op == "reduce_scatter";
    const float want = summed ? n * (n + 1) / 2.0f : static_cast<float>(p + 1);
    if (got != want)
      throw std::runtime_error(op + ": element 0 of chunk " + std::to_string(p) + " is " + std::to_string(got) + ", expected " +
                               std::to_string(want));
  }
}

void collective(pitot::State& state) {
  const std::string op = state.get_string("op");
  const int n = state.world_size();
  // Whole floats, an equal chunk per rank.
  const std::int64_t count = state.get_int("bytes") / static_cast<std::int64_t>(sizeof(float)) / n * n;
  if (count == 0) return state.skip(std::to_string(state.get_int("bytes")) + " bytes hold no float per rank for " + std::to_string(n) + " ranks");
  ncclComm_t comm = pitot::nccl_comm(state);
  const bool gathers = op == "all_gather", scatters = op == "reduce_scatter";
  const std::int64_t send_count = gathers ? count / n : count, recv_count = scatters ? count / n : count;
  Buffers b;
  PITOT_CUDA_CHECK(cudaMalloc(&b.send, send_count * sizeof(float)));
  PITOT_CUDA_CHECK(cudaMalloc(&b.recv, recv_count * sizeof(float)));
  fill<<<static_cast<unsigned>((send_count + 255) / 256), 256>>>(b.send, send_count, static_cast<float>(state.rank() + 1));
  PITOT_CUDA_CHECK(cudaGetLastError());
  check_once(op, b, count, n, comm);
  const double bytes = static_cast<double>(count) * sizeof(float);
  state.add_bytes(bytes);  // algorithm bandwidth: the size over the time
  state.set_bus_factor(bus_factor(op, n));
  state.exec([&](pitot::Launch& l) { run_op(op, b, count, n, comm, l.stream()); });
}
PITOT_BENCHMARK(collective)
    .multi_rank()
    .axis("op", {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"})
    .axis_pow2("bytes", {10, 16, 20, 24, 28, 30});

}  // namespace
