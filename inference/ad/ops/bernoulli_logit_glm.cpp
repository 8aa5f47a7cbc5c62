#include "inference/ad/ops/bernoulli_logit_glm.hpp"

#include <algorithm>
#include <stdexcept>

#include "inference/ad/arena_values.hpp"
#include "inference/ad/gemm.hpp"
#include "inference/ad/packet_log1p.hpp"
#include "inference/ad/tape.hpp"

// Eigen's packet types carry alignment attributes that GCC drops, with a warning, when they are
// template arguments; that is harmless here, and Eigen silences the same warning in its headers.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif

namespace bvi::ad {

namespace {

template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using ColMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
// An S x cols tile of logits whose columns are `ld` >= S apart (ld is S rounded up to a packet).
template <class T>
using TileMap = Eigen::Map<ColMat<T>, 0, Eigen::OuterStride<>>;

// Rows per tile: the tile's features (rows x D) and its logits (ld x rows) take about this many
// bytes together, so both stay in the core's L2 (1 MiB on the machines we measure) from the
// forward GEMM through the elementwise pass to the backward GEMM: X is read from memory once.
constexpr std::size_t kTileBytes = std::size_t(256) << 10;

// Elements per exp loop of the elementwise pass: its results wait in L1 for the second loop.
constexpr Index kGroupElements = 512;

Index tile_rows(Index ld, Index D, std::size_t bytes, Index m) {
  const Index per_row = static_cast<Index>((D + ld) * bytes);
  const Index rows = std::clamp<Index>(static_cast<Index>(kTileBytes) / std::max<Index>(per_row, 1), 16, 4096);
  return std::min(m, rows / 8 * 8);
}

// The elementwise work on an ld x cols tile of logits z = beta x_n (before the intercept),
// column n for data row n, ld a multiple of the packet size (rows past S are padding, computed
// and ignored). With u = t_n (z + alpha_s) and e = exp(-|u|):
//   log sigmoid(u) = min(u, 0) - log(1 + e)            added to ll[s], in double;
//   g = d/dz log sigmoid(u) = t_n sigmoid(-u),  sigmoid(-u) = e/(1 + e) for u >= 0, 1/(1 + e)
//   for u < 0 — written over z when `grad`, and added to gsum[s] (in double) when gsum is given.
// One exp, one log(1 + e) on [0, 1] and one division per element. The exp and the rest run as
// two loops over a few columns at a time, not one: a loop body holding both exp and log has
// chains too long for the out-of-order window, and measured 40 % slower.
// With row weights `w` (null: none), row n's value is added times w_n and its g is w_n t_n
// sigmoid(-u) (the factor t_n w_n in place of t_n, exactly t_n for w_n = 1).
template <class T, class Packet>
void logistic_pass(T* z, Index ld, Index cols, const T* t, const double* w, const T* alpha, bool grad, T* ebuf,
                   T* lbuf, double* ll, double* gsum) {
  namespace ei = Eigen::internal;
  constexpr Index W = ei::unpacket_traits<Packet>::size;
  const Packet zero = ei::pzero(Packet{}), one = ei::pset1<Packet>(T(1));
  const Index group = std::max<Index>(1, kGroupElements / ld);  // columns per pair of loops
  for (Index n0 = 0; n0 < cols; n0 += group) {
    const Index n1 = std::min(cols, n0 + group);
    for (Index n = n0; n < n1; ++n) {
      T* zc = z + n * ld;
      T* ec = ebuf + (n - n0) * ld;
      const Packet tn = ei::pset1<Packet>(t[n]);
      for (Index s = 0; s < ld; s += W) {
        Packet u = ei::ploadu<Packet>(zc + s);
        if (alpha) u = ei::padd(u, ei::ploadu<Packet>(alpha + s));
        u = ei::pmul(u, tn);
        ei::pstoreu(zc + s, u);
        ei::pstoreu(ec + s, ei::pexp(ei::pnegate(ei::pabs(u))));
      }
    }
    for (Index n = n0; n < n1; ++n) {
      T* zc = z + n * ld;
      const T* ec = ebuf + (n - n0) * ld;
      const Packet tn = ei::pset1<Packet>(w ? static_cast<T>(t[n] * w[n]) : t[n]);
      for (Index s = 0; s < ld; s += W) {
        const Packet u = ei::ploadu<Packet>(zc + s), e = ei::ploadu<Packet>(ec + s);
        ei::pstoreu(lbuf + s, ei::psub(ei::pmin(u, zero), packet_log1p_unit(e)));
        if (grad) {
          const Packet r = ei::pdiv(one, ei::padd(one, e));
          // pcmp_le(0, u) is false for NaN, whose r is NaN too.
          const Packet sig_neg = ei::pselect(ei::pcmp_le(zero, u), ei::pmul(e, r), r);
          ei::pstoreu(zc + s, ei::pmul(tn, sig_neg));
        }
      }
      // Sums in double whatever T is: plain loops, which the compiler vectorizes, casts included.
      if (w)
        for (Index s = 0; s < ld; ++s) ll[s] += w[n] * static_cast<double>(lbuf[s]);
      else
        for (Index s = 0; s < ld; ++s) ll[s] += static_cast<double>(lbuf[s]);
      if (gsum)
        for (Index s = 0; s < ld; ++s) gsum[s] += static_cast<double>(zc[s]);
    }
  }
}

}  // namespace

template <class T>
Var bernoulli_logit_glm(const Var* alpha, const Var& beta, const T* x, const double* y, Index rows,
                        const Var* extra, const double* weight) {
  namespace ei = Eigen::internal;
  using Full = typename ei::packet_traits<T>::type;
  using Half = typename ei::unpacket_traits<Full>::half;
  const Index S = beta.rows(), D = beta.cols(), m = rows;
  if (alpha && (alpha->rows() != S || alpha->cols() != 1))
    throw std::invalid_argument("bernoulli_logit_glm: alpha must be S x 1");
  if (extra && (extra->rows() != S || extra->cols() != m))
    throw std::invalid_argument("bernoulli_logit_glm: the extra linear-predictor term must be S x m");
  Tape& tape = beta.tape();
  const bool alpha_adj = alpha && alpha->has_adj();
  const bool extra_adj = extra && extra->has_adj();
  const bool needs_adj = beta.has_adj() || alpha_adj || extra_adj;
  // G for the extra term's adjoint: the tiles overwrite theirs, so it is copied out per tile.
  double* gextra = extra_adj ? arena_array<double>(tape, S * m) : nullptr;
  Var out = tape.make(S, 1, needs_adj);

  // Draws are padded to a whole number of packets (half packets when S is small, so that S = 8
  // floats do not do the work of 16).
  constexpr Index kFull = ei::unpacket_traits<Full>::size, kHalf = ei::unpacket_traits<Half>::size;
  const bool use_half = S <= kHalf;
  const Index W = use_half ? kHalf : kFull;
  const Index ld = (S + W - 1) / W * W;

  // Per-draw accumulators in double: ll, and the intercept's gradient sum_n g_sn.
  double* ll = arena_array<double>(tape, ld);
  std::fill(ll, ll + ld, 0.0);
  double* gsum = nullptr;
  if (alpha_adj) {
    gsum = arena_array<double>(tape, ld);
    std::fill(gsum, gsum + ld, 0.0);
  }
  // beta and alpha in T precision (a copy for float; for double, beta is used in place).
  const T* b = values_as<T>(tape, beta);
  T* a = nullptr;
  if (alpha) {
    a = arena_array<T>(tape, ld);
    for (Index s = 0; s < ld; ++s) a[s] = s < S ? static_cast<T>(alpha->val_data()[s]) : T(0);
  }
  // d out_s / d beta_s = sum_n g_sn x_n, accumulated tile by tile while the tile is in cache
  // (Stan's GLMs likewise compute their partials in the forward pass); the backward closure only
  // scales it by the output adjoint. For float the tile GEMM runs in float into `gx_tile`.
  const bool beta_adj = beta.has_adj() && D > 0;
  double* gx = nullptr;
  T* gx_tile = nullptr;
  if (beta_adj) {
    gx = arena_array<double>(tape, S * D);
    std::fill(gx, gx + S * D, 0.0);
    if constexpr (!std::is_same_v<T, double>) gx_tile = arena_array<T>(tape, S * D);
  }

  const Index mb = std::max<Index>(1, tile_rows(ld, D, sizeof(T), m));
  T* z = arena_array<T>(tape, ld * mb);
  if (ld > S)  // the padding rows, which no GEMM writes, must hold finite numbers
    for (Index n = 0; n < mb; ++n) std::fill(z + n * ld + S, z + (n + 1) * ld, T(0));
  T* t = arena_array<T>(tape, mb);
  T* lbuf = arena_array<T>(tape, ld);
  T* ebuf = arena_array<T>(tape, std::max(ld, kGroupElements));
  GemmWorkspace<T> gemm(tape.arena());
  for (Index r0 = 0; r0 < m; r0 += mb) {
    const Index mt = std::min(mb, m - r0);
    for (Index n = 0; n < mt; ++n) t[n] = y[r0 + n] > 0.5 ? T(1) : T(-1);
    const T* xt = x + r0 * D;  // the tile's mt x D features, row-major
    // Z = B X^T: X^T is X's storage read column-major (D x mt).
    TileMap<T>(z, S, mt, Eigen::OuterStride<>(ld)).setZero();
    gemm.template add_product<Eigen::ColMajor, Eigen::ColMajor>(S, mt, D, b, S, xt, D, z, ld);
    if (extra) {
      const double* e = extra->val_data() + r0 * S;
      for (Index n = 0; n < mt; ++n)
        for (Index s = 0; s < S; ++s) z[n * ld + s] += static_cast<T>(e[n * S + s]);
    }
    if (use_half)
      logistic_pass<T, Half>(z, ld, mt, t, weight ? weight + r0 : nullptr, a, needs_adj, ebuf, lbuf, ll, gsum);
    else
      logistic_pass<T, Full>(z, ld, mt, t, weight ? weight + r0 : nullptr, a, needs_adj, ebuf, lbuf, ll, gsum);
    if (gextra)
      for (Index n = 0; n < mt; ++n)
        for (Index s = 0; s < S; ++s) gextra[(r0 + n) * S + s] = static_cast<double>(z[n * ld + s]);
    if (beta_adj) {
      // sum_n g_sn x_n for the tile: G X, with G the S rows of z.
      if constexpr (std::is_same_v<T, double>) {
        gemm.template add_product<Eigen::ColMajor, Eigen::RowMajor>(S, D, mt, z, ld, xt, D, gx, S);
      } else {
        std::fill(gx_tile, gx_tile + S * D, T(0));
        gemm.template add_product<Eigen::ColMajor, Eigen::RowMajor>(S, D, mt, z, ld, xt, D, gx_tile, S);
        for (Index i = 0; i < S * D; ++i) gx[i] += static_cast<double>(gx_tile[i]);
      }
    }
  }
  Eigen::Map<Eigen::ArrayXd>(tape.val_ptr(out), S) = Eigen::Map<const Eigen::ArrayXd>(ll, S);

  if (needs_adj) {
    const Var bv = beta_adj ? beta : Var();
    const Var av = alpha_adj ? *alpha : Var();  // empty Vars when there is nothing to propagate
    const Var ev = extra_adj ? *extra : Var();
    tape.on_backward([bv, av, ev, out, gx, gsum, gextra, S, D, m] {
      // dbeta_s += dout_s sum_n g_sn x_n,  dalpha_s += dout_s sum_n g_sn,  dE_sn += dout_s g_sn.
      Eigen::Map<const Eigen::ArrayXd> dout(out.adj_data(), S);
      if (bv.has_adj()) bv.adj() += Eigen::Map<const Eigen::ArrayXXd>(gx, S, D).colwise() * dout;
      if (av.has_adj()) av.adj().col(0) += dout * Eigen::Map<const Eigen::ArrayXd>(gsum, S);
      if (ev.has_adj()) ev.adj() += Eigen::Map<const Eigen::ArrayXXd>(gextra, S, m).colwise() * dout;
    });
  }
  return out;
}

template Var bernoulli_logit_glm<double>(const Var*, const Var&, const double*, const double*, Index,
                                         const Var*, const double*);
template Var bernoulli_logit_glm<float>(const Var*, const Var&, const float*, const double*, Index,
                                        const Var*, const double*);

}  // namespace bvi::ad
