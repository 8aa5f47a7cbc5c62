#include "inference/ad/ops/constrain.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "inference/ad/math/cholesky_corr.hpp"
#include "inference/ad/tape.hpp"
#include "inference/math/constants.hpp"

namespace bvi::ad {

namespace {

// Stable sigmoid and log sigmoid.
inline double sigmoid(double u) {
  if (u >= 0) return 1.0 / (1.0 + std::exp(-u));
  const double e = std::exp(u);
  return e / (1.0 + e);
}
inline double log_sigmoid(double u) { return u >= 0 ? -std::log1p(std::exp(-u)) : u - std::log1p(std::exp(u)); }

inline double value(const ColumnTransform& t, double u) {
  switch (t.bound) {
    case Bound::none: return u;
    case Bound::lower: return t.lower + std::exp(u);
    case Bound::upper: return t.upper - std::exp(u);
    case Bound::interval: return t.lower + (t.upper - t.lower) * sigmoid(u);
    case Bound::cholesky_corr:
    case Bound::ordered:
      break;  // a block, not a column (constrain_values)
  }
  return u;
}

// log(1 - tanh(u)^2) = 2 (log 2 - |u| - log(1 + e^(-2|u|))), which does not round to log 0.
inline double log1m_tanh_sq(double u) {
  using bvi::math::kLog2;
  const double a = std::abs(u);
  return 2.0 * (kLog2 - a - std::log1p(std::exp(-2.0 * a)));
}

// One draw of a cholesky_corr block: u[k * stride] -> x[k * stride] (free entries of L), and its
// log-Jacobian.
double cholesky_corr_forward(const double* u, double* x, Index stride, Index K) {
  double lj = 0.0;
  for (Index i = 1; i < K; ++i) {
    double ss = 0.0;
    for (Index j = 0; j < i; ++j) {
      const Index at = corr::free_index(i, j) * stride;
      const double z = std::tanh(u[at]);
      lj += log1m_tanh_sq(u[at]);
      if (j > 0) lj += 0.5 * std::log1p(-ss);
      const double l = j > 0 ? z * std::sqrt(1.0 - ss) : z;
      x[at] = l;
      ss += l * l;
    }
  }
  return lj;
}

// Its reverse pass for one draw: du[k * stride] += d(x, log J)/du given the adjoints gx of x and
// gj of log J. Row i of L in order: s_0 = 0, c_j = sqrt(1 - s_j), L_ij = z_ij c_j,
// s_{j+1} = s_j + L_ij^2, and log J gets log(1 - s_j) / 2 for j >= 1; walked back from the last
// entry with sbar = d/ds_{j+1}. `work` holds 3 K doubles.
void cholesky_corr_backward(const double* u, const double* gx, double gj, double* du, Index stride, Index K,
                            double* work) {
  double* z = work;
  double* c = work + K;
  double* l = work + 2 * K;
  for (Index i = 1; i < K; ++i) {
    double ss = 0.0;
    for (Index j = 0; j < i; ++j) {
      z[j] = std::tanh(u[corr::free_index(i, j) * stride]);
      c[j] = std::sqrt(1.0 - ss);
      l[j] = z[j] * c[j];
      ss += l[j] * l[j];
    }
    double sbar = 0.0;
    for (Index j = i - 1; j >= 0; --j) {
      const Index at = corr::free_index(i, j) * stride;
      const double lbar = gx[at] + 2.0 * l[j] * sbar;
      const double zbar = lbar * c[j];
      if (j > 0) {
        const double s_j = 1.0 - c[j] * c[j];
        sbar += lbar * z[j] * (-0.5 / c[j]) + gj * (-0.5 / (1.0 - s_j));
      }
      // dz/du = 1 - z^2; d log(1 - z^2)/du = -2 z
      du[at] += zbar * (1.0 - z[j] * z[j]) - 2.0 * gj * z[j];
    }
  }
}

}  // namespace

std::vector<ColumnTransform> cholesky_corr_block(Index K) {
  std::vector<ColumnTransform> out;
  for (Index k = 0; k < corr::free_entries(K); ++k) out.push_back({Bound::cholesky_corr, 0.0, 0.0, K, k});
  return out;
}

std::vector<ColumnTransform> ordered_block(Index n) {
  std::vector<ColumnTransform> out;
  for (Index k = 0; k < n; ++k) out.push_back({Bound::ordered, 0.0, 0.0, n, k});
  return out;
}

namespace {
// Checks that a block transform (cholesky_corr, ordered) starting at column j is whole; returns
// its width.
Index block_width(const std::vector<ColumnTransform>& transforms, Index j) {
  const ColumnTransform& t = transforms[static_cast<size_t>(j)];
  const Index n = t.bound == Bound::ordered ? t.block_dim : corr::free_entries(t.block_dim);
  if (t.block_index != 0 || j + n > static_cast<Index>(transforms.size()))
    throw std::invalid_argument("constrain: a block transform must be given whole");
  for (Index k = 0; k < n; ++k) {
    const ColumnTransform& tk = transforms[static_cast<size_t>(j + k)];
    if (tk.bound != t.bound || tk.block_index != k || tk.block_dim != t.block_dim)
      throw std::invalid_argument("constrain: a block transform must be given whole");
  }
  return n;
}

// One draw of an ordered block: x_0 = u_0, x_k = x_{k-1} + e^{u_k}; returns log J = sum_{k>0} u_k.
double ordered_forward(const double* u, double* x, Index stride, Index n) {
  double lj = 0.0;
  for (Index k = 0; k < n; ++k) {
    const double uk = u[k * stride];
    x[k * stride] = k == 0 ? uk : x[(k - 1) * stride] + std::exp(uk);
    if (k > 0) lj += uk;
  }
  return lj;
}

// Its reverse pass: x_j depends on u_k for every k <= j (dx_j/du_0 = 1, dx_j/du_k = e^{u_k}), so
// du_k += e^{u_k} sum_{j >= k} gx_j (k > 0; u_0 takes the whole sum) and gj for k > 0.
void ordered_backward(const double* u, const double* gx, double gj, double* du, Index stride, Index n) {
  double tail = 0.0;
  for (Index k = n - 1; k >= 0; --k) {
    tail += gx[k * stride];
    du[k * stride] += k == 0 ? tail : tail * std::exp(u[k * stride]) + gj;
  }
}
}  // namespace

void constrain_values(const Eigen::Ref<const Eigen::MatrixXd>& u, const std::vector<ColumnTransform>& transforms,
                      Eigen::Ref<Eigen::MatrixXd> x) {
  if (static_cast<Index>(transforms.size()) != u.cols())
    throw std::invalid_argument("constrain_values: one transform per column");
  for (Index j = 0; j < u.cols(); ++j) {
    const ColumnTransform& t = transforms[static_cast<size_t>(j)];
    if (is_block_transform(t)) {
      const Index n = block_width(transforms, j);
      const auto forward = [&](const double* ub, double* xb, Index stride) {
        for (Index s = 0; s < u.rows(); ++s) {
          if (t.bound == Bound::ordered)
            ordered_forward(ub + s, xb + s, stride, n);
          else
            cholesky_corr_forward(ub + s, xb + s, stride, t.block_dim);
        }
      };
      if (u.outerStride() == x.outerStride() && u.data() != x.data()) {
        // u's columns straight into x's: no copies (the Monte Carlo passes constrain every step).
        forward(u.data() + j * u.outerStride(), x.data() + j * x.outerStride(), u.outerStride());
      } else {
        Eigen::MatrixXd ub = u.middleCols(j, n), xb(u.rows(), n);
        forward(ub.data(), xb.data(), u.rows());
        x.middleCols(j, n) = xb;
      }
      j += n - 1;
      continue;
    }
    for (Index s = 0; s < u.rows(); ++s) x(s, j) = value(t, u(s, j));
  }
}

Constrained constrain(const Var& u, const std::vector<ColumnTransform>& transforms) {
  const Index S = u.rows(), P = u.cols();
  if (static_cast<Index>(transforms.size()) != P) throw std::invalid_argument("constrain: one transform per column");
  Tape& tape = u.tape();
  const bool adj = u.has_adj();
  Constrained out{tape.make(S, P, adj), tape.make(S, 1, adj)};
  double* x = tape.val_ptr(out.x);
  double* lj = tape.val_ptr(out.log_jacobian);
  for (Index s = 0; s < S; ++s) lj[s] = 0.0;
  const double* uv = u.val_data();
  Index work_size = 0;
  for (Index j = 0; j < P; ++j) {
    const ColumnTransform& t = transforms[static_cast<size_t>(j)];
    if (t.bound == Bound::ordered) {
      const Index n = block_width(transforms, j);
      for (Index s = 0; s < S; ++s) lj[s] += ordered_forward(uv + j * S + s, x + j * S + s, S, n);
      j += n - 1;
      continue;
    }
    if (t.bound == Bound::cholesky_corr) {
      const Index n = block_width(transforms, j);
      for (Index s = 0; s < S; ++s)
        lj[s] += cholesky_corr_forward(uv + j * S + s, x + j * S + s, S, t.block_dim);
      work_size = std::max(work_size, 3 * t.block_dim);
      j += n - 1;
      continue;
    }
    for (Index s = 0; s < S; ++s) {
      const double ui = uv[j * S + s];
      x[j * S + s] = value(t, ui);
      if (t.bound == Bound::lower || t.bound == Bound::upper)
        lj[s] += ui;
      else if (t.bound == Bound::interval)
        lj[s] += std::log(t.upper - t.lower) + log_sigmoid(ui) + log_sigmoid(-ui);
    }
  }
  if (adj) {
    const ColumnTransform* tr = transforms.data();
    double* work = work_size > 0 ? tape.scratch(work_size) : nullptr;
    tape.on_backward([u, out, tr, S, P, work] {
      const double* uv = u.val_data();
      const double* gx = out.x.adj_data();
      const double* gj = out.log_jacobian.adj_data();
      double* gu = u.adj_data();
      for (Index j = 0; j < P; ++j) {
        const ColumnTransform& t = tr[j];
        if (t.bound == Bound::ordered) {
          for (Index s = 0; s < S; ++s)
            ordered_backward(uv + j * S + s, gx + j * S + s, gj[s], gu + j * S + s, S, t.block_dim);
          j += t.block_dim - 1;
          continue;
        }
        if (t.bound == Bound::cholesky_corr) {
          for (Index s = 0; s < S; ++s)
            cholesky_corr_backward(uv + j * S + s, gx + j * S + s, gj[s], gu + j * S + s, S, t.block_dim,
                                   work);
          j += corr::free_entries(t.block_dim) - 1;
          continue;
        }
        for (Index s = 0; s < S; ++s) {
          const double ui = uv[j * S + s];
          double dx = 1.0, dlj = 0.0;
          switch (t.bound) {
            case Bound::none:
            case Bound::cholesky_corr:
            case Bound::ordered:
              break;
            case Bound::lower:
              dx = std::exp(ui), dlj = 1.0;
              break;
            case Bound::upper:
              dx = -std::exp(ui), dlj = 1.0;
              break;
            case Bound::interval: {
              // dx/du = (b - a) sigmoid(u) sigmoid(-u); d log J / du = sigmoid(-u) - sigmoid(u)
              const double p = sigmoid(ui), q = sigmoid(-ui);
              dx = (t.upper - t.lower) * p * q;
              dlj = q - p;
              break;
            }
          }
          gu[j * S + s] += gx[j * S + s] * dx + gj[s] * dlj;
        }
      }
    });
  }
  return out;
}

}  // namespace bvi::ad
