#pragma once
// C += A B through Eigen's GEMM kernel, with its packing buffers carved from the tape's arena.
// `dst.noalias() = lhs * rhs` on dynamic matrices allocates those buffers on every call (on the
// stack up to 128 KiB, else with malloc), which the per-block loop must not do: a tile of
// S = 128 draws by 232 rows already packs 237 KiB. The workspace keeps one pair of buffers
// for all the products of an op and grows them only when a product needs more.
#include <Eigen/Core>
#include <algorithm>

#include "inference/ad/arena.hpp"

namespace bvi::ad {

template <class T>
class GemmWorkspace {
 public:
  explicit GemmWorkspace(Arena& arena) : arena_(arena) {}

  // C += A B for A m x k, B k x n, C m x n column-major with leading dimension ldc. A and B are
  // column-major (Eigen::ColMajor) or row-major (Eigen::RowMajor) with leading dimensions lda,
  // ldb as the template says. Empty products add nothing.
  template <int OrderA, int OrderB>
  void add_product(Eigen::Index m, Eigen::Index n, Eigen::Index k, const T* a, Eigen::Index lda, const T* b,
                   Eigen::Index ldb, T* c, Eigen::Index ldc) {
    if (m == 0 || n == 0 || k == 0) return;
    Blocking blocking(m, n, k);
    blocking.set_buffers(buffer(blocking.kc() * blocking.mc(), a_, cap_a_),
                         buffer(blocking.kc() * blocking.nc(), b_, cap_b_));
    Eigen::internal::general_matrix_matrix_product<Eigen::Index, T, OrderA, false, T, OrderB, false, Eigen::ColMajor,
                                                   1>::run(m, n, k, a, lda, b, ldb, c, 1, ldc, T(1), blocking,
                                                           nullptr);
  }

 private:
  // Eigen's cache blocking for an m x n x k product (the sizes it would choose itself).
  class Blocking : public Eigen::internal::level3_blocking<T, T> {
   public:
    Blocking(Eigen::Index m, Eigen::Index n, Eigen::Index k) {
      this->m_mc = m;
      this->m_nc = n;
      this->m_kc = k;
      Eigen::internal::computeProductBlockingSizes<T, T, 1>(this->m_kc, this->m_mc, this->m_nc, Eigen::Index(1));
    }
    void set_buffers(T* a, T* b) {
      this->m_blockA = a;
      this->m_blockB = b;
    }
  };

  T* buffer(Eigen::Index n, T*& buf, Eigen::Index& cap) {
    if (n > cap) {
      buf = arena_.allocate_array<T>(static_cast<std::size_t>(n));
      cap = n;
    }
    return buf;
  }

  Arena& arena_;
  T* a_ = nullptr;
  T* b_ = nullptr;
  Eigen::Index cap_a_ = 0, cap_b_ = 0;
};

}  // namespace bvi::ad
