#include "inference/ad/ops/constrain.hpp"

#include <cmath>
#include <stdexcept>

#include "inference/ad/tape.hpp"

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
  }
  return u;
}

}  // namespace

void constrain_values(const Eigen::Ref<const Eigen::MatrixXd>& u, const std::vector<ColumnTransform>& transforms,
                      Eigen::Ref<Eigen::MatrixXd> x) {
  if (static_cast<Index>(transforms.size()) != u.cols())
    throw std::invalid_argument("constrain_values: one transform per column");
  for (Index j = 0; j < u.cols(); ++j)
    for (Index s = 0; s < u.rows(); ++s) x(s, j) = value(transforms[static_cast<size_t>(j)], u(s, j));
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
  for (Index j = 0; j < P; ++j) {
    const ColumnTransform& t = transforms[static_cast<size_t>(j)];
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
    tape.on_backward([u, out, tr, S, P] {
      const double* uv = u.val_data();
      const double* gx = out.x.adj_data();
      const double* gj = out.log_jacobian.adj_data();
      double* gu = u.adj_data();
      for (Index j = 0; j < P; ++j) {
        const ColumnTransform& t = tr[j];
        for (Index s = 0; s < S; ++s) {
          const double ui = uv[j * S + s];
          double dx = 1.0, dlj = 0.0;
          switch (t.bound) {
            case Bound::none: break;
            case Bound::lower: dx = std::exp(ui), dlj = 1.0; break;
            case Bound::upper: dx = -std::exp(ui), dlj = 1.0; break;
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
