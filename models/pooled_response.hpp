#pragma once
// The response's pooled weighted mean and variance over every row of every rank, from which the
// fits start a likelihood's scale (Likelihood::initial_scale). Two passes over y: the variance sums
// squares about the mean, where the one-pass w y^2 - (w y)^2 / W cancels (a constant 0.3 over 3000
// rows gave 1e-14, a log sd start of -16; 5000.1 gave 2.7e-6). A spread below 1e-10 of the mean's
// size is taken as none (the rounding of the mean itself), and W - 1 divides, as for frequency
// weights. Collective: the same on every rank, and bit-identical for every thread and rank count.
#include <algorithm>
#include <cmath>

#include "inference/reduce/chunk_reducer.hpp"
#include "models/data_view.hpp"

namespace bvi::models {

struct PooledResponse {
  double weight = 0.0;  // W = sum of the weights (the row count without weights)
  double mean = 0.0;    // sum w y / W
  double var = 0.0;     // sum w (y - mean)^2 / (W - 1); 0 for W <= 1 or no spread
};

template <class T>
PooledResponse pooled_response(const DataView<T>& dv, reduce::ChunkReducer& reducer) {
  PooledResponse out;
  const reduce::ShardPlan& plan = reducer.plan();
  double sums[2];
  reducer.sum(
      2,
      [&dv, &plan](int, Eigen::Index chunk, double* partial) {
        const auto [begin, end] = dv.chunk_rows(plan, chunk);
        for (Eigen::Index r = begin; r < end; ++r) {
          const double w = dv.weight != nullptr ? dv.weight[r] : 1.0;
          partial[0] += w;
          partial[1] += w * dv.y[r];
        }
      },
      sums, 2.0 * static_cast<double>(dv.total_rows));
  out.weight = sums[0];
  if (!(out.weight > 0.0)) return out;
  out.mean = sums[1] / out.weight;
  if (!(out.weight > 1.0)) return out;
  const double mean = out.mean;
  double squares = 0.0;
  reducer.sum(
      1,
      [&dv, &plan, mean](int, Eigen::Index chunk, double* partial) {
        const auto [begin, end] = dv.chunk_rows(plan, chunk);
        for (Eigen::Index r = begin; r < end; ++r) {
          const double w = dv.weight != nullptr ? dv.weight[r] : 1.0, e = dv.y[r] - mean;
          partial[0] += w * e * e;
        }
      },
      &squares, 3.0 * static_cast<double>(dv.total_rows));
  const double var = squares / (out.weight - 1.0);
  const double floor = 1e-10 * std::abs(mean);
  out.var = std::isfinite(var) && std::sqrt(var) > floor ? var : 0.0;
  return out;
}

}  // namespace bvi::models
