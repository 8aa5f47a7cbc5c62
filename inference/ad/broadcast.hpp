#pragma once
// Numpy-style broadcasting for 2-D Vars: along each dimension the sizes agree or one of them is
// 1. The backward pass sums an output adjoint back over the dimensions an input was broadcast
// along. Shape mismatches are programming errors of the model builder (std::invalid_argument).
#include <stdexcept>
#include <string>

#include "inference/ad/var.hpp"

namespace bvi::ad {

struct Shape {
  Index rows;
  Index cols;
};

inline Index broadcast_dim(Index a, Index b, const char* op) {
  if (a == b || b == 1) return a;
  if (a == 1) return b;
  throw std::invalid_argument(std::string(op) + ": shapes do not broadcast (" + std::to_string(a) + " vs " +
                              std::to_string(b) + ")");
}

inline Shape broadcast_shape(const Var& a, const Var& b, const char* op) {
  return {broadcast_dim(a.rows(), b.rows(), op), broadcast_dim(a.cols(), b.cols(), op)};
}
inline Shape broadcast_shape(const Var& a, const Var& b, const Var& c, const char* op) {
  Shape ab = broadcast_shape(a, b, op);
  return {broadcast_dim(ab.rows, c.rows(), op), broadcast_dim(ab.cols, c.cols(), op)};
}

// Pointer to column j of x's values as seen from an output with more columns.
inline const double* bcol(const Var& x, Index j) {
  return x.val_data() + (x.cols() == 1 ? 0 : j) * x.rows();
}
inline double* bcol_adj(const Var& x, Index j) {
  return x.adj_data() + (x.cols() == 1 ? 0 : j) * x.rows();
}

// out(i, j) = f(a(i, j), b(i, j)) under broadcasting, into the R x C buffer `out`. The four
// row cases are separate loops so each one vectorizes.
template <class F>
void broadcast_apply(const Var& a, const Var& b, double* out, Shape s, F f) {
  const Index R = s.rows;
  for (Index j = 0; j < s.cols; ++j) {
    const double* pa = bcol(a, j);
    const double* pb = bcol(b, j);
    double* po = out + j * R;
    if (a.rows() == R && b.rows() == R) {
      for (Index i = 0; i < R; ++i) po[i] = f(pa[i], pb[i]);
    } else if (a.rows() == R) {
      const double vb = pb[0];
      for (Index i = 0; i < R; ++i) po[i] = f(pa[i], vb);
    } else if (b.rows() == R) {
      const double va = pa[0];
      for (Index i = 0; i < R; ++i) po[i] = f(va, pb[i]);
    } else {
      const double v = f(pa[0], pb[0]);
      for (Index i = 0; i < R; ++i) po[i] = v;
    }
  }
}

// x.adj += g summed down to x's shape, where g(i, j) for the R x C output is given by `g`.
template <class G>
void accumulate_broadcast(const Var& x, Shape s, G g) {
  const Index R = s.rows;
  for (Index j = 0; j < s.cols; ++j) {
    double* px = bcol_adj(x, j);
    if (x.rows() == R) {
      for (Index i = 0; i < R; ++i) px[i] += g(i, j);
    } else {
      double acc = 0.0;
      for (Index i = 0; i < R; ++i) acc += g(i, j);
      px[0] += acc;
    }
  }
}

// Element (i, j) of x as seen from a broadcast output (the slow, general accessor).
inline double bval(const Var& x, Index i, Index j) {
  return x.val_data()[(x.cols() == 1 ? 0 : j) * x.rows() + (x.rows() == 1 ? 0 : i)];
}

}  // namespace bvi::ad

namespace bvi::ad {

// x.adj += (g * w) summed down to x's shape, for an R x C adjoint g and a factor w that is
// itself broadcast: the backward pass of a product. Column loops with the row cases split so
// the common ones (full columns, or a per-column scalar) vectorize.
inline void accumulate_product(const Var& x, const Var& w, const double* g, Shape s) {
  const Index R = s.rows;
  for (Index j = 0; j < s.cols; ++j) {
    const double* gj = g + j * R;
    const double* pw = bcol(w, j);
    double* px = bcol_adj(x, j);
    const bool w_full = w.rows() == R;
    if (x.rows() == R) {
      if (w_full)
        for (Index i = 0; i < R; ++i) px[i] += gj[i] * pw[i];
      else {
        const double wv = pw[0];
        for (Index i = 0; i < R; ++i) px[i] += gj[i] * wv;
      }
    } else {
      double acc = 0.0;
      if (w_full)
        for (Index i = 0; i < R; ++i) acc += gj[i] * pw[i];
      else {
        for (Index i = 0; i < R; ++i) acc += gj[i];
        acc *= pw[0];
      }
      px[0] += acc;
    }
  }
}

}  // namespace bvi::ad
