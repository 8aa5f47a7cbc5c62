#include "inference/ad/ops/student_t_glm.hpp"

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "inference/ad/math/special_functions.hpp"
#include "inference/ad/ops/glm_kernel.hpp"
#include "inference/math/constants.hpp"

// Eigen's packet types carry alignment attributes that GCC drops, with a warning, when they are
// template arguments; that is harmless here, and Eigen silences the same warning in its headers.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

constexpr double kStudentLogPi = 1.14472988584940017414;  // log(pi)

// log(1 + u) - w with L = log(1 + u), w = u/(1 + u), the row's part of d/dnu that cancels for
// small u: below w = 1e-3 the series sum_{k>=2} w^k/k to w^6 (relative error < 3e-16), above it
// L - w (relative error at most ~2 eps / u < 5e-13). Cheaper than student_t_kernel.hpp's
// open-ended series, which a pass over every row and draw would pay for half the elements.
inline double log1p_minus_ratio_fast(double L, double w) {
  if (w < 1e-3) return w * w * (1.0 / 2 + w * (1.0 / 3 + w * (1.0 / 4 + w * (1.0 / 5 + w * (1.0 / 6)))));
  return L - w;
}

namespace ei = Eigen::internal;
using StudentPacket = ei::packet_traits<double>::type;
constexpr Index kStudentPacket = ei::unpacket_traits<StudentPacket>::size;

// One data row's elements for draws [0, packed) (a multiple of kStudentPacket), the same sums as the
// scalar loop of StudentTFamily::forward: log(1 + u), u = z^2/nu, by Eigen's packet log with
// Goldberg's correction u log(1 + u) / ((1 + u) - 1) (generic_plog1p: within a few ulp of
// log1p), instead of a libm call per element. Returns the first draw left to the scalar loop:
// `packed`, or the start of a packet where some u >= 1e16 (log1p_sq_div's other branch).
Index student_packet_row(double* e, double y, double wt, Index packed, const double* df, const double* inv_sd,
                         double* half_np1_L, double* sum_w, double* sum_f, bool grad, bool want_nu) {
  const StudentPacket one = ei::pset1<StudentPacket>(1.0), half = ei::pset1<StudentPacket>(0.5),
                      big = ei::pset1<StudentPacket>(1e16);
  const StudentPacket py = ei::pset1<StudentPacket>(y), pwt = ei::pset1<StudentPacket>(wt),
                      small_w = ei::pset1<StudentPacket>(1e-3);
  for (Index s = 0; s < packed; s += kStudentPacket) {
    const StudentPacket v = ei::ploadu<StudentPacket>(df + s), isd = ei::ploadu<StudentPacket>(inv_sd + s);
    const StudentPacket z = ei::pmul(ei::psub(py, ei::ploadu<StudentPacket>(e + s)), isd),
                        zz = ei::pmul(z, z);
    const StudentPacket u = ei::pdiv(zz, v);
    if (ei::predux_any(ei::pcmp_le(big, u))) return s;  // a NaN u gives NaN on both paths
    const StudentPacket L = ei::generic_plog1p(u), vp1 = ei::padd(v, one);
    ei::pstoreu(half_np1_L + s,
                ei::pmadd(pwt, ei::pmul(ei::pmul(half, vp1), L), ei::ploadu<StudentPacket>(half_np1_L + s)));
    if (!grad) continue;
    // z/(nu + z^2) and z^2/(nu + z^2) as the scalar loop computes them.
    const StudentPacket r =
        ei::pselect(ei::pcmp_lt(one, ei::pabs(z)), ei::pdiv(one, ei::padd(z, ei::pdiv(v, z))),
                    ei::pdiv(z, ei::padd(v, zz)));
    const StudentPacket w = ei::pdiv(one, ei::padd(one, ei::pdiv(v, zz)));
    ei::pstoreu(e + s, ei::pmul(ei::pmul(vp1, r), isd));
    ei::pstoreu(sum_w + s, ei::pmadd(pwt, w, ei::ploadu<StudentPacket>(sum_w + s)));
    if (want_nu) {
      // log1p_minus_ratio_fast: the series below w = 1e-3, L - w above.
      StudentPacket series = ei::pset1<StudentPacket>(1.0 / 6);
      for (const double c : {1.0 / 5, 1.0 / 4, 1.0 / 3, 1.0 / 2})
        series = ei::pmadd(series, w, ei::pset1<StudentPacket>(c));
      series = ei::pmul(ei::pmul(w, w), series);
      const StudentPacket f = ei::pselect(ei::pcmp_lt(w, small_w), series, ei::psub(L, w));
      ei::pstoreu(sum_f + s, ei::pmadd(pwt, f, ei::ploadu<StudentPacket>(sum_f + s)));
    }
  }
  return packed;
}

struct StudentTFamily {
  Var sigma, nu;             // S x 1 each
  double* dsigma = nullptr;  // d out_s / d sigma_s and d out_s / d nu_s, saved by forward()
  double* dnu = nullptr;

  template <class T>
  using Compute = double;

  bool has_adj() const { return sigma.has_adj() || nu.has_adj(); }

  template <class C>
  void forward(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    constexpr double qnan = std::numeric_limits<double>::quiet_NaN();
    constexpr double inf = std::numeric_limits<double>::infinity();
    const Index S = eta.rows(), m = rows.rows;
    const double* sd = sigma.val_data();
    const double* df = nu.val_data();
    // Per draw: 1/sigma, and the running sums over the rows of (nu + 1)/2 L (z^2/2 at nu = inf),
    // w and L - w.
    double* inv_sd = arena_array<double>(tape, S);
    double* half_np1_L = arena_array<double>(tape, S);
    double* sum_w = arena_array<double>(tape, S);
    double* sum_f = arena_array<double>(tape, S);
    for (Index s = 0; s < S; ++s) {
      inv_sd[s] = 1.0 / sd[s];
      half_np1_L[s] = sum_w[s] = sum_f[s] = 0.0;
    }
    const bool want_nu = grad && nu.has_adj();
    // Whole packets of draws through student_packet_row (double eta, every nu finite); the rest, and a
    // packet where some z^2/nu reaches 1e16, one draw at a time below.
    Index packed = 0;
    if constexpr (std::is_same_v<C, double>) {
      bool finite_nu = true;
      for (Index s = 0; s < S; ++s) finite_nu = finite_nu && df[s] != inf;
      if (finite_nu) packed = S - S % kStudentPacket;
    }
    double md = 0.0;  // sum_n w_n: m without weights
    for (Index n = 0; n < m; ++n) {
      const double y = rows.y[n];
      // Row weights: this row's value and its sigma and nu terms times w_n (the kernel weights
      // dl/deta).
      const double wt = row_weight(rows, n);
      md += wt;
      C* e = &eta(0, n);
      Index first = 0;
      if constexpr (std::is_same_v<C, double>)
        first = student_packet_row(e, y, wt, packed, df, inv_sd, half_np1_L, sum_w, sum_f, grad, want_nu);
      for (Index s = first; s < S; ++s) {
        const double v = df[s];
        const double z = (y - static_cast<double>(e[s])) * inv_sd[s];
        const double zz = z * z;
        if (v == inf) {  // the normal limit
          half_np1_L[s] += wt * (0.5 * zz);
          if (grad) {
            e[s] = static_cast<C>(z * inv_sd[s]);
            sum_f[s] += wt * zz;  // (nu + 1) w -> z^2: d/dsigma = (sum z^2 - m)/sigma
          }
          continue;
        }
        const double L = math::log1p_sq_div(z, v);
        half_np1_L[s] += wt * (0.5 * (v + 1.0) * L);
        if (grad) {
          // z/(nu + z^2) and z^2/(nu + z^2) without overflow at large |z|, safe at z = 0.
          const double r = std::abs(z) > 1.0 ? 1.0 / (z + v / z) : z / (v + zz);
          const double w = 1.0 / (1.0 + v / zz);
          e[s] = static_cast<C>((v + 1.0) * r * inv_sd[s]);
          sum_w[s] += wt * w;
          if (want_nu) sum_f[s] += wt * log1p_minus_ratio_fast(L, w);
        }
      }
    }
    if (grad && has_adj()) {
      dsigma = arena_array<double>(tape, S);
      dnu = arena_array<double>(tape, S);
    }
    for (Index s = 0; s < S; ++s) {
      const double v = df[s], sg = sd[s];
      if (!(v > 0.0) || !(sg > 0.0)) {
        ll[s] = qnan;
        if (dsigma) dsigma[s] = dnu[s] = qnan;
        continue;
      }
      if (m == 0) {
        ll[s] = 0.0;
        if (dsigma) dsigma[s] = dnu[s] = 0.0;
        continue;
      }
      const double log_sd = std::log(sg);
      if (v == inf) {
        ll[s] = -md * (log_sd + bvi::math::kHalfLog2Pi) - half_np1_L[s];
        if (dsigma) {
          dsigma[s] = (sum_f[s] - md) * inv_sd[s];
          dnu[s] = 0.0;
        }
        continue;
      }
      const double c = math::log_gamma_half_step(0.5 * v) - 0.5 * (std::log(v) + kStudentLogPi);
      ll[s] = md * (c - log_sd) - half_np1_L[s];
      if (dsigma) {
        dsigma[s] = ((v + 1.0) * sum_w[s] - md) * inv_sd[s];
        dnu[s] =
            want_nu ? 0.5 * (md * math::digamma_half_step_excess(0.5 * v) - sum_f[s] + sum_w[s] / v) : 0.0;
      }
    }
  }

  void backward(const double* dout) const {
    const Index S = sigma.rows();
    Eigen::Map<const Eigen::ArrayXd> g(dout, S);
    if (sigma.has_adj())
      Eigen::Map<Eigen::ArrayXd>(sigma.adj_data(), S) += g * Eigen::Map<const Eigen::ArrayXd>(dsigma, S);
    if (nu.has_adj())
      Eigen::Map<Eigen::ArrayXd>(nu.adj_data(), S) += g * Eigen::Map<const Eigen::ArrayXd>(dnu, S);
  }
};

}  // namespace

template <class T>
Var student_t_glm(const Var* alpha, const Var& beta, const Var& sigma, const Var& nu, const T* x,
                  const GlmRows& rows, const Var* extra) {
  if (sigma.rows() != beta.rows() || sigma.cols() != 1 || nu.rows() != beta.rows() || nu.cols() != 1)
    throw std::invalid_argument("student_t_glm: sigma and nu must be S x 1");
  return glm_detail::glm(alpha, beta, x, rows, StudentTFamily{sigma, nu}, extra);
}

template Var student_t_glm<double>(const Var*, const Var&, const Var&, const Var&, const double*,
                                   const GlmRows&, const Var*);
template Var student_t_glm<float>(const Var*, const Var&, const Var&, const Var&, const float*,
                                  const GlmRows&, const Var*);

}  // namespace bvi::ad
