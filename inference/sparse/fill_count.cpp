#include "inference/sparse/fill_count.hpp"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>
#include <limits>
#include <vector>

namespace bvi::vi {

Index max_factor_nonzeros() { return std::numeric_limits<int>::max(); }

Index cholesky_nonzeros(const BlockPattern& pattern, Index cap) {
  using Sparse = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;
  const Index n = pattern.dim();
  if (n > cap) return cap + 1;
  // The lower triangle, as SparseFactor builds it; the values do not matter.
  const std::vector<BlockPattern::Entry> entries = pattern.lower_entries();
  std::vector<Eigen::Triplet<double, int>> triplets;
  triplets.reserve(entries.size());
  for (const auto& e : entries) triplets.emplace_back(static_cast<int>(e.row), static_cast<int>(e.col), 1.0);
  Sparse lower(n, n);
  lower.setFromTriplets(triplets.begin(), triplets.end());
  lower.makeCompressed();
  // The ordering SimplicialLLT<Sparse, Lower, AMDOrdering<int>> takes: AMD of the full symmetric
  // matrix (it returns the inverse permutation), then the upper triangle of P A P'.
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> p_inv, p;
  {
    Sparse full;
    full = lower.selfadjointView<Eigen::Lower>();
    Eigen::AMDOrdering<int> amd;
    amd(full, p_inv);
  }
  if (p_inv.size() > 0) p = p_inv.inverse();
  Sparse upper(n, n);
  if (p.size() > 0)
    upper.selfadjointView<Eigen::Upper>() = lower.selfadjointView<Eigen::Lower>().twistedBy(p);
  else
    upper.selfadjointView<Eigen::Upper>() = lower.selfadjointView<Eigen::Lower>();
  // Row k of L is every node reachable in the elimination tree from the non-zeros above the
  // diagonal in column k of the upper triangle; each step of a walk is one non-zero.
  std::vector<int> parent(static_cast<std::size_t>(n), -1), tag(static_cast<std::size_t>(n), -1);
  Index count = n;  // the diagonal
  for (int k = 0; k < n; ++k) {
    tag[static_cast<std::size_t>(k)] = k;
    for (Sparse::InnerIterator it(upper, k); it; ++it) {
      for (int i = it.index(); i < k && tag[static_cast<std::size_t>(i)] != k; i = parent[static_cast<std::size_t>(i)]) {
        if (parent[static_cast<std::size_t>(i)] == -1) parent[static_cast<std::size_t>(i)] = k;
        tag[static_cast<std::size_t>(i)] = k;
        if (++count > cap) return cap + 1;
      }
    }
  }
  return count;
}

}  // namespace bvi::vi
