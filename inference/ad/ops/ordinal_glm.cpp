#include "inference/ad/ops/ordinal_glm.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "inference/ad/ops/glm_kernel.hpp"
#include "inference/ad/ops/ordinal_probit_packet.hpp"

namespace bvi::ad {

namespace {

using glm_detail::ArrayMap;

struct OrdinalFamily {
  Var cutpoints;             // S x (K - 1)
  detail::OrdinalLink link;
  double* dcut = nullptr;    // d out_s / d c_sj, S x (K - 1), saved by forward() for backward()

  template <class T>
  using Compute = double;

  bool has_adj() const { return cutpoints.has_adj(); }

  template <class C>
  void forward(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad) {
    const Index S = eta.rows(), m = rows.rows, J = cutpoints.cols();
    const int K = static_cast<int>(J + 1);
    const double* c = cutpoints.val_data();
    const bool want_cut = grad && cutpoints.has_adj();
    if (want_cut) {
      dcut = arena_array<double>(tape, S * J);
      for (Index i = 0; i < S * J; ++i) dcut[i] = 0.0;
    }
    ll.setZero();
    if (link == detail::OrdinalLink::logit) {
      forward_logit(tape, eta, rows, ll, grad, want_cut, c, S, K);
      return;
    }
    if constexpr (std::is_same_v<C, double>) {
      forward_probit(tape, eta, rows, ll, grad, want_cut, c, S, K);
      return;
    }
    for (Index n = 0; n < m; ++n) {
      const double y = rows.y[n];
      const int k0 = static_cast<int>(y) - 1;
      if (!(y >= 1 && y <= K && static_cast<double>(k0 + 1) == y))
        throw std::invalid_argument("ordinal_glm: a category outside 1 ... K");
      // Row weights: the row's value and its cutpoint gradients times w_n (the kernel weights
      // dl/deta).
      const double wt = row_weight(rows, n);
      auto e = eta.col(n);
      for (Index s = 0; s < S; ++s) {
        double de = 0.0, dlo = 0.0, dhi = 0.0;
        ll[s] += wt * detail::ordinal_term(link, k0, K, c + s, S, static_cast<double>(e[s]), grad ? &de : nullptr,
                                      &dlo, &dhi);
        if (!grad) continue;
        e[s] = static_cast<C>(de);
        if (!want_cut) continue;
        if (k0 > 0) dcut[(k0 - 1) * S + s] += wt * dlo;
        if (k0 < K - 1) dcut[k0 * S + s] += wt * dhi;
      }
    }
  }

  // One row's S log probabilities l and their partials da, db in its bounds (lo, hi: whether it
  // has a lower and an upper one) into the output (weighted), eta's slot e (which then holds
  // d l / d eta) and the cutpoints' adjoints: the logit and probit paths share this.
  template <class Col>
  void accumulate_row(Eigen::Map<Eigen::ArrayXd>& ll, Col e, const Eigen::Map<Eigen::ArrayXd>& l,
                      const Eigen::Map<Eigen::ArrayXd>& da, const Eigen::Map<Eigen::ArrayXd>& db, double wt, bool lo,
                      bool hi, bool grad, bool want_cut, int k0, Index S) {
    using Arr = Eigen::ArrayXd;
    ll += wt * l;
    if (!grad) return;
    if (lo && hi)
      e = -(da + db);
    else if (hi)
      e = -db;
    else
      e = -da;
    if (!want_cut) return;
    if (lo) Eigen::Map<Arr>(dcut + static_cast<Index>(k0 - 1) * S, S) += wt * da;
    if (hi) Eigen::Map<Arr>(dcut + static_cast<Index>(k0) * S, S) += wt * db;
  }

  // The logit for the S draws of one row at a time, in Eigen arrays (vectorized exp and log, as
  // the scalar kernel's seven libm calls per element are not):
  //   F(b) - F(a) = expit(b) expit(-a) (1 - e^{a-b}),
  // each factor computed to its relative precision (w = e^{a-b} as e^a e^{-b}; 1 - w directly
  // where w <= 1/2, else Kahan's expm1, (1 - w) d / log w), so l = log of the product holds
  // ~1e-15 relative and
  // 1e-16 absolute (a row far inside both bounds, l ~ -1e-17, gives 0); the partials
  //   dl/db = expit(-b) + r,  dl/da = -expit(a) - r,  r = 1 / expm1(b - a) = w / (1 - w),
  // from the same exponentials. An element whose product is not a normal positive double (a bound
  // beyond ~700 in size, cutpoints out of order, a NaN) is redone by the scalar kernel
  // (ordinal_kernel.hpp), which handles those.
  template <class C>
  void forward_logit(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad,
                     bool want_cut, const double* c, Index S, int K) {
    static_assert(std::is_same_v<C, double>, "the ordinal family computes in double");
    constexpr double inf = std::numeric_limits<double>::infinity();
    constexpr double tiny = std::numeric_limits<double>::min();
    using Arr = Eigen::ArrayXd;
    using CMap = Eigen::Map<const Arr>;
    double* scratch = arena_array<double>(tape, 12 * S);  // no allocation per pass (the tape's arena)
    auto slot = [&](int k) { return Eigen::Map<Arr>(scratch + k * S, S); };
    Eigen::Map<Arr> A = slot(0), B = slot(1), ea = slot(2), enb = slot(3), sa = slot(4), fb = slot(5), w = slot(6),
                    om = slot(7), prod = slot(8), l = slot(9), da = slot(10), db = slot(11);
    for (Index n = 0; n < rows.rows; ++n) {
      const double y = rows.y[n];
      const int k0 = static_cast<int>(y) - 1;
      if (!(y >= 1 && y <= K && static_cast<double>(k0 + 1) == y))
        throw std::invalid_argument("ordinal_glm: a category outside 1 ... K");
      const double wt = row_weight(rows, n);
      auto e = eta.col(n);
      const bool lo = k0 > 0, hi = k0 < K - 1;
      if (lo) A = CMap(c + static_cast<Index>(k0 - 1) * S, S) - e;
      if (hi) B = CMap(c + static_cast<Index>(k0) * S, S) - e;
      if (lo && hi) {
        ea = A.exp();
        enb = (-B).exp();
        sa = (1.0 + ea).inverse();   // expit(-a)
        fb = (1.0 + enb).inverse();  // expit(b)
        w = ea * enb;  // e^{a-b} to 2 ulps (0 once it underflows, where 1 - w is 1 anyway)
        om = 1.0 - w;
        if ((w > 0.5).any()) {  // close bounds somewhere (b - a < log 2): Kahan's expm1 there
          const auto d = A - B;
          om = (w <= 0.5).select(om, (w == 1.0).select(-d, om * d / w.log()));  // -expm1(a - b)
        }
        prod = fb * sa * om;
      } else if (hi) {  // the first category: F(b)
        enb = (-B).exp();
        fb = (1.0 + enb).inverse();
        prod = fb;
      } else {  // the last: 1 - F(a)
        ea = A.exp();
        sa = (1.0 + ea).inverse();
        prod = sa;
      }
      l = prod.log();
      if (grad) {
        if (lo && hi) {
          const auto r = w / om;
          db = enb * fb + r;
          da = -(ea * sa) - r;
        } else if (hi) {
          db = enb * fb;
        } else {
          da = -(ea * sa);
        }
      }
      // One vector test for the whole row; the rare element outside the fast path, one by one.
      const bool in_range = (prod >= tiny).all() && (!lo || (ea < inf).all()) && (!hi || (enb < inf).all());
      for (Index s = 0; !in_range && s < S; ++s) {
        if (prod[s] >= tiny && (!lo || ea[s] < inf) && (!hi || enb[s] < inf)) continue;
        double pa = 0.0, pb = 0.0;
        l[s] = detail::ordinal_logit_term(lo ? A[s] : -inf, hi ? B[s] : inf, &pa, &pb);
        if (lo) da[s] = pa;
        if (hi) db[s] = pb;
      }
      accumulate_row(ll, e, l, da, db, wt, lo, hi, grad, want_cut, k0, S);
    }
  }

  // The probit for the S draws of one row at a time, on SIMD packets (ordinal_probit_packet.hpp:
  // the scalar kernel's branches as selects, erfc through a vectorized erfcx; the first and last
  // categories through log Phi, one erfcx instead of two), the draws padded to whole packets. A draw the packet flags (a NaN bound, cutpoints out of order or equal, a bound
  // beyond 1e100) is redone by the scalar kernel (ordinal_kernel.hpp).
  template <class C>
  void forward_probit(Tape& tape, ArrayMap<C> eta, const GlmRows& rows, Eigen::Map<Eigen::ArrayXd> ll, bool grad,
                      bool want_cut, const double* c, Index S, int K) {
    namespace ei = Eigen::internal;
    using Packet = ei::packet_traits<double>::type;
    constexpr Index W = ei::packet_traits<double>::size;
    constexpr double inf = std::numeric_limits<double>::infinity();
    using Arr = Eigen::ArrayXd;
    const Index P = (S + W - 1) / W * W;
    double* scratch = arena_array<double>(tape, 6 * P);  // no allocation per pass (the tape's arena)
    double *A = scratch, *B = scratch + P, *l = scratch + 2 * P, *da = scratch + 3 * P, *db = scratch + 4 * P,
           *bad = scratch + 5 * P;
    for (Index s = S; s < P; ++s) A[s] = -1.0, B[s] = 1.0;  // padding: an ordinary category
    for (Index n = 0; n < rows.rows; ++n) {
      const double y = rows.y[n];
      const int k0 = static_cast<int>(y) - 1;
      if (!(y >= 1 && y <= K && static_cast<double>(k0 + 1) == y))
        throw std::invalid_argument("ordinal_glm: a category outside 1 ... K");
      const double wt = row_weight(rows, n);
      auto e = eta.col(n);
      const bool lo = k0 > 0, hi = k0 < K - 1;
      const double* clo = c + static_cast<Index>(k0 - 1) * S;
      const double* chi = c + static_cast<Index>(k0) * S;
      for (Index s = 0; s < S; ++s) {
        A[s] = lo ? clo[s] - static_cast<double>(e[s]) : -inf;
        B[s] = hi ? chi[s] - static_cast<double>(e[s]) : inf;
      }
      Packet any_bad = ei::pzero(Packet());  // one test per row, not one per draw
      if (lo && hi) {
        for (Index s = 0; s < P; s += W) {
          const auto t = detail::packet_ordinal_probit(ei::ploadu<Packet>(A + s), ei::ploadu<Packet>(B + s));
          any_bad = ei::por(any_bad, t.bad);
          ei::pstoreu(l + s, t.l);
          ei::pstoreu(da + s, t.da);
          ei::pstoreu(db + s, t.db);
          ei::pstoreu(bad + s, t.bad);
        }
      } else if (hi) {  // the first category, log Phi(b): one erfcx
        for (Index s = 0; s < P; s += W) {
          const auto t = detail::packet_log_ndtr(ei::ploadu<Packet>(B + s));
          any_bad = ei::por(any_bad, t.bad);
          ei::pstoreu(l + s, t.l);
          ei::pstoreu(db + s, t.db);
          ei::pstoreu(bad + s, t.bad);
        }
      } else {  // the last, log(1 - Phi(a)) = log Phi(-a)
        for (Index s = 0; s < P; s += W) {
          const auto t = detail::packet_log_ndtr(ei::pnegate(ei::ploadu<Packet>(A + s)));
          any_bad = ei::por(any_bad, t.bad);
          ei::pstoreu(l + s, t.l);
          ei::pstoreu(da + s, ei::pnegate(t.db));
          ei::pstoreu(bad + s, t.bad);
        }
      }
      for (Index s = 0; ei::predux_any(any_bad) && s < S; ++s) {
        if (!std::isnan(bad[s]) && bad[s] == 0.0) continue;  // the mask: all bits set, a NaN
        double pa = 0.0, pb = 0.0;
        l[s] = detail::ordinal_probit_term(A[s], B[s], &pa, &pb);
        da[s] = pa;
        db[s] = pb;
      }
      accumulate_row(ll, e, Eigen::Map<Arr>(l, S), Eigen::Map<Arr>(da, S), Eigen::Map<Arr>(db, S), wt, lo, hi, grad,
                     want_cut, k0, S);
    }
  }

  void backward(const double* dout) const {
    if (!cutpoints.has_adj()) return;
    const Index S = cutpoints.rows();
    cutpoints.adj() += Eigen::Map<const Eigen::ArrayXXd>(dcut, S, cutpoints.cols()).colwise() *
                       Eigen::Map<const Eigen::ArrayXd>(dout, S);
  }
};

}  // namespace

template <class T>
Var ordinal_glm(const Var* alpha, const Var& beta, const Var& cutpoints, const T* x, const GlmRows& rows,
                detail::OrdinalLink link, const Var* extra) {
  if (cutpoints.rows() != beta.rows() || cutpoints.cols() < 1)
    throw std::invalid_argument("ordinal_glm: cutpoints must be S x (K - 1), K >= 2");
  return glm_detail::glm(alpha, beta, x, rows, OrdinalFamily{cutpoints, link}, extra);
}

template Var ordinal_glm<double>(const Var*, const Var&, const Var&, const double*, const GlmRows&,
                                 detail::OrdinalLink, const Var*);
template Var ordinal_glm<float>(const Var*, const Var&, const Var&, const float*, const GlmRows&,
                                detail::OrdinalLink, const Var*);

}  // namespace bvi::ad
