#pragma once
// Sums per-chunk partial results over threads and ranks in a fixed order (Stan's reduce_sum,
// made bit-reproducible): each owned chunk is computed by one thread into its own slot, the slots
// of all ranks are gathered, and every rank adds them in chunk order.
#include <Eigen/Core>
#include <functional>
#include <vector>

#include "inference/reduce/communicator.hpp"
#include "inference/reduce/shard_plan.hpp"

namespace bvi::reduce {

class ChunkReducer {
 public:
  // `work(thread, chunk, partial)` adds chunk `chunk`'s contribution into `partial` (zeroed,
  // `len` doubles). `thread` in [0, threads()) indexes per-thread scratch such as AD tapes.
  using Work = std::function<void(int thread, Index chunk, double* partial)>;

  ChunkReducer(const ShardPlan& plan, Communicator& comm, int threads);

  // total[0..len) = sum over every chunk of every rank, added in chunk order. Identical bits on
  // every rank for any thread count. An exception in any thread is rethrown here (the first one).
  // `flops`, when known, is the work of the whole sum: small sums run on fewer threads, since
  // waking a thread costs more than a few microseconds of arithmetic, and on a shared machine an
  // OpenMP team that spins while waiting can cost more than the work itself.
  void sum(Index len, const Work& work, double* total, double flops = -1.0);
  // The same, with the caller's own combination: `combine(chunk, slot)` is called for every
  // chunk of every rank, in chunk order, on every rank, with that chunk's `len` doubles (the
  // caller adds them into its total, which it zeroed). For partials laid out differently in each
  // chunk (a chunk's own groups, packed), whose sums still run over the chunks in order.
  using Combine = std::function<void(Index chunk, const double* slot)>;
  void sum(Index len, const Work& work, const Combine& combine, double flops = -1.0);

  int threads() const { return threads_; }
  const ShardPlan& plan() const { return plan_; }
  Communicator& comm() { return comm_; }
  Index first_chunk() const { return first_chunk_; }
  // Seconds the last sum() spent combining the partials (gather and the ordered sum): the price
  // of results that do not depend on the thread or rank count.
  double last_combine_seconds() const { return combine_seconds_; }
  Index last_chunk() const { return last_chunk_; }

 private:
  ShardPlan plan_;
  Communicator& comm_;
  int threads_;
  Index first_chunk_, last_chunk_;
  // Slots are `stride` doubles apart, stride = len rounded up to a cache line, in 64-byte aligned
  // storage: a chunk's slot then has the same alignment whichever rank or thread computes it.
  // That matters for bit-reproducibility: Eigen peels unaligned heads and tails of vectorized
  // loops into scalar code whose rounding differs (std::exp vs its packet exp, pairwise vs
  // sequential sums).
  Eigen::VectorXd local_;   // owned chunks x stride
  Eigen::VectorXd global_;  // all chunks x stride (only with several ranks)
  std::vector<long> counts_;
  double combine_seconds_ = 0;
};

}  // namespace bvi::reduce
