#include "inference/reduce/chunk_reducer.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <exception>

#include "inference/reduce/collective_error.hpp"

namespace bvi::reduce {

ChunkReducer::ChunkReducer(const ShardPlan& plan, Communicator& comm, int threads)
    : plan_(plan),
      comm_(comm),
      threads_(std::max(1, threads)),
      first_chunk_(plan.first_chunk(comm.rank(), comm.size())),
      last_chunk_(plan.last_chunk(comm.rank(), comm.size())) {}

void ChunkReducer::sum(Index len, const Work& work, double* total, double flops) {
  Eigen::Map<Eigen::ArrayXd> out(total, len);
  out.setZero();
  sum(
      len, work, [&out, len](Index, const double* slot) { out += Eigen::Map<const Eigen::ArrayXd>(slot, len); },
      flops);
}

void ChunkReducer::sum(Index len, const Work& work, const Combine& combine, double flops) {
  const Index owned = last_chunk_ - first_chunk_;
  const Index stride = (len + 7) / 8 * 8;
  // Grows once to the largest request, then is reused: no allocation per step.
  if (local_.size() < owned * stride) local_.resize(owned * stride);
  std::exception_ptr error;
  // At least ~4 MFLOP (a fraction of a millisecond) per thread.
  constexpr double kFlopsPerThread = 4e6;
  Index useful = threads_;
  if (flops >= 0) useful = std::max<Index>(1, static_cast<Index>(flops / kFlopsPerThread));
  const int nt = static_cast<int>(std::min<Index>({threads_, useful, std::max<Index>(owned, 1)}));
  auto run_chunk = [&](Index k, int thread) {
    double* partial = local_.data() + k * stride;
    std::fill(partial, partial + len, 0.0);
    try {
      work(thread, first_chunk_ + k, partial);
    } catch (...) {
#pragma omp critical(bvi_reducer_error)
      if (!error) error = std::current_exception();
    }
  };
  if (nt == 1) {
    // No OpenMP region for one thread: libgomp allocates a team for every region it starts.
    for (Index k = 0; k < owned; ++k) run_chunk(k, 0);
  } else {
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (Index k = 0; k < owned; ++k) run_chunk(k, omp_get_thread_num());
  }
  // Under MPI the ranks agree on failure before the gather, so a rank whose chunk failed cannot
  // leave the others waiting in it.
  if (comm_.size() > 1)
    collectively(comm_, [&] {
      if (error) std::rethrow_exception(error);
    });
  else if (error)
    std::rethrow_exception(error);

  const auto combine_start = std::chrono::steady_clock::now();
  const double* all = local_.data();
  if (comm_.size() > 1) {
    counts_.assign(comm_.size(), 0);
    for (int r = 0; r < comm_.size(); ++r)
      counts_[r] = static_cast<long>(
          (plan_.last_chunk(r, comm_.size()) - plan_.first_chunk(r, comm_.size())) * stride);
    if (global_.size() < plan_.n_chunks * stride) global_.resize(plan_.n_chunks * stride);
    comm_.allgatherv(local_.data(), counts_, global_.data());
    all = global_.data();
  }
  // Each element is summed over chunks in chunk order.
  for (Index c = 0; c < plan_.n_chunks; ++c) combine(c, all + c * stride);
  combine_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - combine_start).count();
}

}  // namespace bvi::reduce
