#include "inference/diagnostics/psis.hpp"

#include "inference/diagnostics/psis_loo.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace bvi::diagnostics {

namespace {

using Eigen::Index;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// log of the smallest normal double: below it a ratio relative to the largest has lost its digits.
const double kLogMinNormal = std::log(std::numeric_limits<double>::min());

// Loo's and ArviZ's minimum: a two-parameter fit to fewer draws is noise.
constexpr Index kMinTailDraws = 5;

// A tail is flat when max - u <= kFlatTailRelTol * max(1, |max|) (log scale). log p(theta, y) is a
// sum over data rows whose rounding error grows with |log p| (blocked summation: a few eps
// * |log p|; naive summation of 1e7 rows: ~1e-9 |log p|), and log p - log q is about
// log p(y), of the same size, so the tolerance is relative to the log ratios themselves. Any
// real mismatch between q and p spreads the top 10% of log ratios by far more (a spread of
// 1e-9 |log p| means KL(q || p) is ~1e-18 |log p|^2: q is p to double precision).
constexpr double kFlatTailRelTol = 1e-9;

// Zhang & Stephens (2009), Sec. 4: grid of 30 + floor(sqrt(n)) points; the prior on theta is
// scaled by the first quartile with the constant 3. Loo's wip: 10 pseudo-observations at 0.5.
constexpr Index kMinGridPoints = 30;
constexpr double kGridPriorScale = 3.0;
constexpr double kPriorObservations = 10.0;
constexpr double kPriorK = 0.5;

double log_sum_exp(const Eigen::Ref<const Eigen::VectorXd>& v) {
  if (v.size() == 0) return -kInf;
  const double m = v.maxCoeff();
  if (!std::isfinite(m)) return m;  // all -inf: -inf (NaN/+inf are screened out earlier)
  return m + std::log((v.array() - m).exp().sum());
}

// Per-thread scratch, reused from row to row (loo calls the PSIS of one data row per row: an
// allocation per row cost more than some of the arithmetic).
struct PsisWorkspace {
  std::vector<std::pair<double, Index>> pairs;  // (log ratio, draw) candidates for the tail
  std::vector<double> sample;                   // the cut's sample of every 4th draw
  std::vector<double> cand_v;                   // the candidates' log ratios and draws
  std::vector<Index> cand_i;
  std::vector<Index> top;                       // the M + 1 largest draws, ascending
  std::vector<double> top_v;                    // their log ratios
  std::vector<std::int64_t> rank;               // the candidates' ranks
  Eigen::VectorXd x;                            // exceedances
  Eigen::ArrayXd grid_z, grid_u;                // the profile's -theta x and 1 - theta x
  Eigen::VectorXd grid_theta, grid_log_lik, grid_root;
  Eigen::ArrayXd grid_x;                        // x padded to whole packets
  Eigen::ArrayXd grid_k;                        // the profile's k(theta) on the grid
  Eigen::ArrayXd log_1mp;                       // log1p(-(z - 1/2) / n), z = 1..n, for the last n
  Index log_1mp_n = 0;
  Eigen::ArrayXd smoothed, smoothed_full, q, qa, qe;
  // psis_loo_sums': the correction it last saw, W = exp(c - max c), and the log ratios.
  Eigen::VectorXd correction;
  Eigen::ArrayXd correction_weight;
  double correction_weight_sum = 0;              // its sum
  double correction_max = 0;
  bool correction_zero = false;                 // correction was set to 0 (an empty one)
  Eigen::VectorXd lr;
  Eigen::ArrayXd row_exp;
  Eigen::ArrayXd x_lw, x_a, x_e, x_full;        // analyse_tail's exceedances
  Eigen::VectorXd log_ratios, lw;               // loo_point's
};

PsisWorkspace& workspace() {
  thread_local PsisWorkspace ws;
  return ws;
}

// What pareto_k_hat and psis_log_weights share: the threshold, the tail draws and the fit.
struct TailAnalysis {
  ParetoFit fit{kInf, kNaN, 0, ParetoStatus::non_finite_ratio};
  // top[j], j = 0..M: the M + 1 largest draws by ascending log ratio, ties by index (the threshold
  // draw first); empty unless M >= 5. top[first_tail..M] are the exceedances when fitted.
  const std::vector<Index>* top = nullptr;
  std::size_t first_tail = 0;
  double max_log_ratio = kNaN;
  double log_threshold = kNaN;  // log u - max_log_ratio
};

// The profile's k(theta_j) = mean_i log1p(-theta_j x_i) for a grid of theta, by packets of grid
// points: lane l of packet g is theta[g W + l], and each x_i is one broadcast. Per lane,
// log1p(z) = log(u) - ((u - 1) - z) / u with u = 1 + z, z = -theta x (profile_k's arithmetic),
// and the logs of u are taken of products of up to 12 consecutive factors, one log per lane and
// block: 12 times fewer logs. (The grid was a loop over theta of vectors over x: its horizontal
// sums and the 12-factor product chain of every grid point ran one after another, latency-bound;
// across grid points the W lanes are independent.) The product's rounding (12 eps relative at
// most) is an absolute error of ~1e-15 in the sum, as the logs' own. A lane whose product of a
// block leaves [1e-280, 1e280] (or is NaN: u <= 0) takes that block's every log, and a lane whose
// k comes out below kProductMinK in magnitude (theta x small: its relative accuracy is what l
// feels) is redone with every log, profile_k's arithmetic on x padded with zeros.
//
// The correction's 1 / u is Eigen's division or, with AVX-512, rcp14 (relative error < 2^-14):
// u >= x_max / (12 m x*) >= 1 / (12 m) on the grid (theta < 1/x_max - 1 / (12 m x*)), so
// |(u - 1) - z| / u, the rounding of 1 + z over u, is below 2^-54 * 12 m (3e-14 at m = 39) and
// rcp14 moves it by < 2e-18: far under the products' own rounding. A packet division per lane
// and x was a third of the grid's time.
constexpr double kProductMinK = 1e-2;
constexpr Index kProductBlock = 12;

namespace ei = Eigen::internal;
using GridPacket = ei::packet_traits<double>::type;
constexpr Index kGridLanes = ei::packet_traits<double>::size;

inline GridPacket grid_reciprocal(const GridPacket& u) {
#if defined(__AVX512F__) && defined(EIGEN_VECTORIZE_AVX512)
  return _mm512_rcp14_pd(u);
#else
  return ei::pdiv(ei::pset1<GridPacket>(1.0), u);
#endif
}

// k(theta) with every log, on xp (x padded with zeros: a zero adds log 1 - 0 = 0).
double profile_k_every_log(double theta, const Eigen::ArrayXd& xp, Index n, PsisWorkspace& ws) {
  Eigen::ArrayXd& z = ws.grid_z;
  Eigen::ArrayXd& u = ws.grid_u;
  z = -theta * xp;
  u = 1.0 + z;
  return (u.log() - ((u - 1.0) - z) / u).sum() / static_cast<double>(n);
}

// k for theta[0 .. padded_m), padded_m a multiple of kGridLanes, into k (the same length).
void grid_profile_k(const double* theta, Index padded_m, const double* x, Index n, double* k) {
  const GridPacket one = ei::pset1<GridPacket>(1.0);
  const GridPacket zero = ei::pset1<GridPacket>(0.0);
  const GridPacket inv_n = ei::pset1<GridPacket>(1.0 / static_cast<double>(n));
  alignas(64) double prod[kGridLanes];
  alignas(64) double sums[kGridLanes];
  for (Index g = 0; g < padded_m; g += kGridLanes) {
    const GridPacket neg_theta = ei::pnegate(ei::ploadu<GridPacket>(theta + g));
    GridPacket log_sum = zero, corr0 = zero, corr1 = zero;
    for (Index i0 = 0; i0 < n; i0 += kProductBlock) {
      const Index i1 = std::min(n, i0 + kProductBlock);
      GridPacket p0 = one, p1 = one;  // two chains: even and odd factors
      Index i = i0;
      for (; i + 2 <= i1; i += 2) {
        const GridPacket z0 = ei::pmul(neg_theta, ei::pset1<GridPacket>(x[i]));
        const GridPacket z1 = ei::pmul(neg_theta, ei::pset1<GridPacket>(x[i + 1]));
        const GridPacket u0 = ei::padd(one, z0);
        const GridPacket u1 = ei::padd(one, z1);
        corr0 = ei::padd(corr0, ei::pmul(ei::psub(ei::psub(u0, one), z0), grid_reciprocal(u0)));
        corr1 = ei::padd(corr1, ei::pmul(ei::psub(ei::psub(u1, one), z1), grid_reciprocal(u1)));
        p0 = ei::pmul(p0, u0);
        p1 = ei::pmul(p1, u1);
      }
      if (i < i1) {
        const GridPacket z0 = ei::pmul(neg_theta, ei::pset1<GridPacket>(x[i]));
        const GridPacket u0 = ei::padd(one, z0);
        corr0 = ei::padd(corr0, ei::pmul(ei::psub(ei::psub(u0, one), z0), grid_reciprocal(u0)));
        p0 = ei::pmul(p0, u0);
      }
      const GridPacket p = ei::pmul(p0, p1);
      ei::pstore(prod, p);
      bool in_range = true;
      for (Index l = 0; l < kGridLanes; ++l) in_range = in_range && prod[l] >= 1e-280 && prod[l] <= 1e280;
      if (in_range) {
        log_sum = ei::padd(log_sum, ei::plog(p));
        continue;
      }
      ei::pstore(sums, log_sum);
      for (Index l = 0; l < kGridLanes; ++l) {
        if (prod[l] >= 1e-280 && prod[l] <= 1e280) {
          sums[l] += std::log(prod[l]);
        } else {
          const double t = -theta[g + l];
          for (Index j = i0; j < i1; ++j) sums[l] += std::log(1.0 + t * x[j]);
        }
      }
      log_sum = ei::pload<GridPacket>(sums);
    }
    ei::pstoreu(k + g, ei::pmul(ei::psub(log_sum, ei::padd(corr0, corr1)), inv_n));
  }
}

// fit_generalized_pareto on valid exceedances (n >= 2, finite, >= 0, one > 0), sorting x in place.
GeneralizedPareto fit_generalized_pareto_workspace(Eigen::VectorXd& x, bool weakly_informative_prior,
                                                   PsisWorkspace& ws) {
  const Index n = x.size();
  // PSIS's exceedances come in ascending order but for rounding: any sort gives the same array.
  if (!std::is_sorted(x.data(), x.data() + n)) std::sort(x.data(), x.data() + n);
  const double x_max = x[n - 1];

  // x* = the first quartile, x_(floor(n/4 + 1/2)) (1-based), sets the scale of the prior on theta.
  // If more than a quarter of the exceedances are 0 (PSIS only gets 0 through underflow, from a
  // tail spanning > 1e300), x* = 0 would put the whole grid at -inf: take the smallest positive.
  double x_star = x[(n + 2) / 4 - 1];
  if (x_star == 0.0) x_star = *std::find_if(x.data(), x.data() + n, [](double v) { return v > 0.0; });

  // theta_j = 1/x_(n) + (1 - sqrt(m / (j - 1/2))) / (3 x*), j = 1..m: all < 1/x_(n), where the
  // likelihood lives (1 - theta x_i > 0 for every i).
  const Index m = kMinGridPoints + static_cast<Index>(std::floor(std::sqrt(static_cast<double>(n))));
  Eigen::VectorXd& theta = ws.grid_theta;
  Eigen::VectorXd& log_lik = ws.grid_log_lik;
  const Index padded_m = (m + kGridLanes - 1) / kGridLanes * kGridLanes;
  theta.resize(padded_m);
  log_lik.resize(padded_m);
  const double mean_x = x.mean();
  Eigen::VectorXd& root = ws.grid_root;  // sqrt(m / (j - 1/2)): depends on m alone, kept
  if (root.size() != m) {
    root.resize(m);
    for (Index j = 0; j < m; ++j) root[j] = std::sqrt(static_cast<double>(m) / (static_cast<double>(j + 1) - 0.5));
  }
  for (Index j = 0; j < m; ++j) theta[j] = 1.0 / x_max + (1.0 - root[j]) / (kGridPriorScale * x_star);
  // Profile log likelihood l(theta) = n (log(-theta / k(theta)) - k(theta) - 1); at theta = 0
  // its limit, the exponential distribution's n (-log mean(x) - 1). The grid is padded to whole
  // packets with theta = 0 (l = -inf, not read), so that the grid's loops leave no remainder to
  // libm; x is padded with zeros for the every-log path.
  theta.tail(padded_m - m).setZero();
  const Index padded = (n + 15) / 16 * 16;
  Eigen::ArrayXd& xp = ws.grid_x;
  xp.setZero(padded);
  xp.head(n) = x.array();
  Eigen::ArrayXd& k = ws.grid_k;
  k.resize(padded_m);
  grid_profile_k(theta.data(), padded_m, x.data(), n, k.data());
  for (Index j = 0; j < m; ++j)
    if (theta[j] != 0.0 && !(std::abs(k[j]) >= kProductMinK)) k[j] = profile_k_every_log(theta[j], xp, n, ws);
  const double nd = static_cast<double>(n);
  log_lik.array() = nd * ((-theta.array() / k).log() - k - 1.0);
  for (Index j = 0; j < padded_m; ++j) {
    if (j >= m) {
      log_lik[j] = -kInf;
      continue;
    }
    if (theta[j] == 0.0) log_lik[j] = nd * (-std::log(mean_x) - 1.0);
    if (std::isnan(log_lik[j])) log_lik[j] = -kInf;  // a point with no likelihood gets no weight
  }
  // Posterior mean of theta under the grid prior: weights exp(l_j) / sum_i exp(l_i).
  // (Over the m points alone: Eigen's packet exp of -inf is not 0 but ~2e-308, by a slow path.)
  const double lse = log_sum_exp(log_lik.head(m));
  const double theta_hat = (theta.head(m).array() * (log_lik.head(m).array() - lse).exp()).sum();

  GeneralizedPareto fit;
  if (theta_hat == 0.0) {
    fit = {0.0, mean_x};  // the exponential limit of k = mean log1p(-theta x), sigma = -k / theta
  } else {
    fit.k = profile_k_every_log(theta_hat, xp, n, ws);
    fit.sigma = -fit.k / theta_hat;
  }
  if (weakly_informative_prior) {
    fit.k = (nd * fit.k + kPriorObservations * kPriorK) / (nd + kPriorObservations);
  }
  return fit;
}

// The M + 1 = `keep` largest draws by (log ratio, draw), ascending, into ws.top (draws) and
// ws.top_v (their log ratios): the draws a full sort by (ratio, draw) puts last, in its order.
// (loo calls this once per data row: a full sort of S indices was half of its time, then an
// nth_element and a sort of (ratio, draw) pairs were a quarter, mostly mispredicted branches.)
//
// A cut c is ladder_cut's (below) or, when it has none, taken from every 4th draw: the sample's
// (keep / 3 + 1)-th largest, so about 4 keep / 3 draws have lr >= c (a branch-free pass collects
// them, in draw order). Which cut it was changes the time, not the result: when there are at
// least `keep` of them the keep-th largest ratio is >= c, so every draw of the top passes the cut.
// Between `keep` and kMaxRankCandidates candidates, each one's rank among them is counted
// (#{j : (v_j, j) < (v_i, i)}: branch-free comparisons the compiler vectorizes, C^2 of them),
// which places the top directly. Otherwise (the cut kept too few, or S is small or large) an
// nth_element and a sort of (ratio, draw) pairs over the candidates, or over all draws.
constexpr std::size_t kMaxRankCandidates = 320;

// A cut for select_top without a selection: the counts of draws with lr >= mean + z sd for
// z = 1/4, 2/4, ..., 8/4 in one branch-free pass (8 comparisons per draw, one SIMD compare), and
// the highest of these cuts that at least `keep` draws reach. It keeps `keep` draws and those
// between two rungs (~20 of 1000 for normal-like ratios, where the sample's cut keeps ~keep / 3
// more), and has no branch to mispredict where the sample's nth_element missed about half of
// its own (the time loo spent choosing the cut: 8 % of it, one thread). False, and the
// caller takes the sample's cut, when the ladder has no such rung with at most
// kMaxRankCandidates draws (a ratio that is not finite, all ratios equal, or a skew that puts
// fewer than `keep` draws above mean + sd / 4).
constexpr int kLadderRungs = 8;
constexpr double kLadderStep = 0.25;

bool ladder_cut(const Eigen::Ref<const Eigen::VectorXd>& lr, double lr_sum, std::size_t keep, double* cut) {
  const Index S = lr.size();
  if (S == 0) return false;
  const double mean = lr_sum / static_cast<double>(S);
  const double sd = std::sqrt((lr.array() - mean).square().mean());
  if (!std::isfinite(mean) || !(sd > 0.0) || !std::isfinite(sd)) return false;
  alignas(64) double rung[kLadderRungs];
  alignas(64) std::int64_t count[kLadderRungs] = {};
  for (int j = 0; j < kLadderRungs; ++j) rung[j] = mean + kLadderStep * (j + 1) * sd;
  const double* v = lr.data();
  for (Index s = 0; s < S; ++s) {
    const double x = v[s];
    for (int j = 0; j < kLadderRungs; ++j) count[j] += x >= rung[j] ? 1 : 0;
  }
  for (int j = kLadderRungs - 1; j >= 0; --j) {
    const auto n = static_cast<std::size_t>(count[j]);
    if (n < keep) continue;
    if (n > kMaxRankCandidates) return false;
    *cut = rung[j];
    return true;
  }
  return false;
}

void select_top(const Eigen::Ref<const Eigen::VectorXd>& lr, double lr_sum, std::size_t keep, PsisWorkspace& ws) {
  const auto S = static_cast<std::size_t>(lr.size());
  ws.top.resize(keep);
  ws.top_v.resize(keep);
  const std::size_t stride = 4, sample = S / stride;
  const std::size_t above = keep / 3 + 1;
  if (ws.cand_v.size() < S + 8) {
    ws.cand_v.resize(S + 8);
    ws.cand_i.resize(S + 8);
  }
  // The draws with lr >= c, in draw order, branch-free. With AVX-512, 8 draws at a time by
  // compress-stores (the scalar loop's stores were a fifth of the selection's time); each store
  // writes up to 8 values past `count`, which the S + 8 entries hold.
  const auto gather = [&](double c) {
    double* cv = ws.cand_v.data();
    Index* ci = ws.cand_i.data();
    std::size_t count = 0;
    std::size_t s = 0;
#if defined(__AVX512F__)
    static_assert(sizeof(Index) == 8, "draw indices are compressed as 64-bit lanes");
    const double* v = lr.data();
    const __m512d cut8 = _mm512_set1_pd(c);
    const __m512i eight = _mm512_set1_epi64(8);
    __m512i index = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    for (; s + 8 <= S; s += 8) {
      const __m512d x = _mm512_loadu_pd(v + s);
      const __mmask8 keep8 = _mm512_cmp_pd_mask(x, cut8, _CMP_GE_OQ);  // x >= c, false for NaN
      _mm512_storeu_pd(cv + count, _mm512_maskz_compress_pd(keep8, x));
      _mm512_storeu_si512(ci + count, _mm512_maskz_compress_epi64(keep8, index));
      count += static_cast<std::size_t>(__builtin_popcount(static_cast<unsigned>(keep8)));
      index = _mm512_add_epi64(index, eight);
    }
#endif
    for (; s < S; ++s) {
      const double x = lr[static_cast<Index>(s)];
      cv[count] = x;
      ci[count] = static_cast<Index>(s);
      count += x >= c ? 1 : 0;
    }
    return count;
  };
  std::size_t n = 0;
  bool cut = false;
  double c = 0;
  if (ladder_cut(lr, lr_sum, keep, &c)) {
    n = gather(c);
    cut = n >= keep;  // always: the same comparisons counted it
  } else if (sample > 2 * above) {
    std::vector<double>& v = ws.sample;
    v.resize(sample);
    for (std::size_t j = 0; j < sample; ++j) v[j] = lr[static_cast<Index>(j * stride)];
    const auto at = v.end() - static_cast<std::ptrdiff_t>(above);
    std::nth_element(v.begin(), at, v.end());
    n = gather(*at);
    cut = n >= keep;
  }
  if (cut && n <= kMaxRankCandidates) {
    double* cv = ws.cand_v.data();
    const Index* ci = ws.cand_i.data();
    const std::size_t padded = (n + 7) / 8 * 8;
    for (std::size_t j = n; j < padded; ++j) cv[j] = kInf;
    const auto offset = static_cast<std::int64_t>(n - keep);
    // below_i = #{j : v_j < v_i}. Without ties these are 0..n-1, each once, and sum to
    // n (n - 1) / 2; a tie gives its values one rank and lowers the sum, and then the earlier
    // draws of a tied ratio are counted as below (the strict order by (ratio, draw)).
    std::vector<std::int64_t>& rank = ws.rank;
    rank.resize(n);
    std::int64_t rank_sum = 0;
    // Four candidates per pass over the others: one load of v_j feeds four comparisons (the
    // padding past n is +inf, so n rounded up to 4 stays inside it).
    for (std::size_t i = 0; i < n; i += 4) {
      const double v0 = cv[i], v1 = cv[i + 1], v2 = cv[i + 2], v3 = cv[i + 3];
      std::int64_t b0 = 0, b1 = 0, b2 = 0, b3 = 0;
      for (std::size_t j = 0; j < padded; ++j) {
        const double x = cv[j];
        b0 += x < v0 ? 1 : 0;
        b1 += x < v1 ? 1 : 0;
        b2 += x < v2 ? 1 : 0;
        b3 += x < v3 ? 1 : 0;
      }
      const std::int64_t below[4] = {b0, b1, b2, b3};
      for (std::size_t r = 0; r < 4 && i + r < n; ++r) {
        rank[i + r] = below[r];
        rank_sum += below[r];
      }
    }
    if (rank_sum != static_cast<std::int64_t>(n * (n - 1) / 2))
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < i; ++j) rank[i] += cv[j] == cv[i] ? 1 : 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t pos = rank[i] - offset;
      if (pos >= 0) {
        ws.top[static_cast<std::size_t>(pos)] = ci[i];
        ws.top_v[static_cast<std::size_t>(pos)] = cv[i];
      }
    }
    return;
  }
  std::vector<std::pair<double, Index>>& pairs = ws.pairs;
  if (pairs.size() < S) pairs.resize(S);
  if (cut) {
    for (std::size_t j = 0; j < n; ++j) pairs[j] = {ws.cand_v[j], ws.cand_i[j]};
  } else {
    for (std::size_t s = 0; s < S; ++s) pairs[s] = {lr[static_cast<Index>(s)], static_cast<Index>(s)};
    n = S;
  }
  const auto end = pairs.begin() + static_cast<std::ptrdiff_t>(n);
  const auto threshold = end - static_cast<std::ptrdiff_t>(keep);
  std::nth_element(pairs.begin(), threshold, end);  // pair's < : by ratio, ties by draw
  std::sort(threshold, end);
  for (std::size_t j = 0; j < keep; ++j) {
    ws.top[j] = threshold[static_cast<std::ptrdiff_t>(j)].second;
    ws.top_v[j] = threshold[static_cast<std::ptrdiff_t>(j)].first;
  }
}

// lr_sum: the sum of lr, in any order (the caller's pass may have made it).
TailAnalysis analyse_tail(const Eigen::Ref<const Eigen::VectorXd>& lr, double lr_sum, PsisWorkspace& ws) {
  TailAnalysis t;
  const Index S = lr.size();
  // NaN or +inf anywhere. The sum is NaN or +inf if one is (-inf alone gives -inf), and a
  // vectorized sum costs less than the element-by-element test, made only when the sum is not finite.
  const double sum = lr_sum;
  if (!std::isfinite(sum) && sum != -kInf)
    for (Index s = 0; s < S; ++s)
      if (std::isnan(lr[s]) || lr[s] == kInf) return t;  // non_finite_ratio

  t.fit.status = ParetoStatus::too_few_tail_draws;
  const Index M = psis_tail_length(S);
  // Only the threshold and the tail above it are read in sorted order (select_top). The order is
  // a strict total one (ties by index), so the draws are those a full sort puts there.
  if (M < kMinTailDraws) {  // also S = 0; M < S whenever M >= 5
    if (S > 0) t.max_log_ratio = lr.maxCoeff();
    return t;
  }
  select_top(lr, sum, static_cast<std::size_t>(M + 1), ws);
  const std::vector<Index>& top = ws.top;
  t.top = &top;
  t.max_log_ratio = lr[top.back()];

  const double max_lr = t.max_log_ratio;
  const double u = lr[top.front()];
  // u / r_max below the smallest normal double (log 2^-1022 = -708.4) is a zero threshold ratio
  // on the scale the tail is fitted on: the exceedances underflow to 0 and the GPD fit to those
  // zeros is meaningless (it came out k ~ 0.06, "good", for a diverged fit whose largest ratio
  // outweighed the next by e^55000). Such a tail is as heavy as S draws can show.
  if (u == -kInf || u - max_lr < kLogMinNormal) {
    t.fit.status = ParetoStatus::zero_weight_threshold;
    return t;
  }
  t.log_threshold = u - max_lr;
  if (max_lr - u <= kFlatTailRelTol * std::max(1.0, std::abs(max_lr))) {
    t.fit = {-kInf, 0.0, 0, ParetoStatus::flat_tail};
    return t;
  }

  // Ties with u are not exceedances: x = 0 is not a GPD value, and leaving them out keeps tied
  // draws together (they all keep the raw weight u).
  std::size_t first = 1;
  while (first < top.size() && lr[top[first]] == u) ++first;
  t.first_tail = first;
  const Index n = static_cast<Index>(top.size() - first);
  if (n < kMinTailDraws) return t;  // too_few_tail_draws

  // x = (r - u) / r_max = e^lw (1 - e^(lw_u - lw)) with lw = log r - log r_max <= 0: no overflow,
  // and -expm1 keeps the relative accuracy of exceedances just above u that e^lw - e^lw_u loses.
  // On arrays (a libm call per value was 5 % of loo): expm1(a) by Kahan's trick as in
  // smoothed_tail, to an ulp or two (k-hat moves by ~1e-14: it is ill-conditioned in x).
  Eigen::VectorXd& x = ws.x;
  Eigen::ArrayXd& lw = ws.x_lw;
  Eigen::ArrayXd& a = ws.x_a;
  Eigen::ArrayXd& e = ws.x_e;
  // Padded to whole packets with lw = 0 (harmless values) so that Eigen leaves no remainder to libm.
  const Index padded = (n + 15) / 16 * 16;
  lw.setZero(padded);
  lw.head(n) = Eigen::Map<const Eigen::ArrayXd>(ws.top_v.data() + first, n) - max_lr;
  a = t.log_threshold - lw;  // in [-708.4, 0): e^a is a normal number
  e = a.exp();
  ws.x_full = lw.exp() * ((1.0 - e) * a / e.log());
  x = ws.x_full.head(n).matrix();
  for (Index j = 0; j < n; ++j)
    if (e[j] == 1.0) x[j] = std::exp(lw[j]) * -a[j];  // expm1(a) = a where e^a rounds to 1
  const GeneralizedPareto gpd = fit_generalized_pareto_workspace(x, /*weakly_informative_prior=*/true, ws);
  // The fit cannot give NaN for valid exceedances; if it ever does, fail safe as loo does.
  const double k = std::isnan(gpd.k) ? kInf : gpd.k;
  t.fit = {k, gpd.sigma, n, ParetoStatus::fitted};
  return t;
}

// The smoothed tail of a fitted analysis (finite k), ascending: entry z is the smoothed log weight,
// on the scale where the largest raw ratio is 1, of draw top[first_tail + z]. In ws.smoothed.
const Eigen::ArrayXd& smoothed_tail(const TailAnalysis& t, PsisWorkspace& ws) {
  const Index n = t.fit.tail_length;
  const double k = t.fit.k, sigma = t.fit.sigma;
  const double* tail_v = ws.top_v.data() + t.first_tail;
  // Smoothed tail in the raw ratios' order: log(u + F^{-1}((z - 1/2) / n)) on the scale where
  // the largest raw ratio is 1, truncated there (Vehtari et al. 2024, Sec. 3), for z = 1..n at
  // once. log1p(-p_z) depends on n alone (95 for every row when S = 1000): kept from the last row.
  // Arrays padded to whole packets (the padding repeats the last value) so that Eigen leaves no
  // remainder to libm; smoothed keeps the first n.
  const Index padded = (n + 15) / 16 * 16;
  Eigen::ArrayXd& log_1mp = ws.log_1mp;
  if (ws.log_1mp_n != n) {
    log_1mp.resize(padded);
    for (Index z = 0; z < n; ++z)
      log_1mp[z] = std::log1p(-(static_cast<double>(z) + 0.5) / static_cast<double>(n));
    log_1mp.tail(padded - n).setConstant(log_1mp[n - 1]);
    ws.log_1mp_n = n;
  }
  // F^{-1}(p) = sigma expm1(-k log1p(-p)) / k (generalized_pareto_quantile), with expm1(a) =
  // (e^a - 1) a / log(e^a) (Kahan's trick, to an ulp or two; a itself where e^a rounds to 1),
  // which Eigen vectorizes where std::expm1 is a call per value.
  Eigen::ArrayXd& q = ws.q;
  if (k == 0.0) {
    q = -sigma * log_1mp;
  } else {
    Eigen::ArrayXd& a = ws.qa;
    Eigen::ArrayXd& e = ws.qe;
    a = -k * log_1mp;
    e = a.exp();
    // e = 0 or +inf (|k| > 100, not a fit PSIS makes): expm1 is -1 or +inf, what e - 1 gives.
    // (The quotient on the whole array, then the exceptions: Eigen's select would evaluate its
    // branches one value at a time.)
    q = (e - 1.0) * a / e.log();
    for (Index z = 0; z < padded; ++z)
      if (e[z] == 1.0) q[z] = a[z];
      else if (e[z] == 0.0 || e[z] == kInf) q[z] = e[z] - 1.0;
    q = q * sigma / k;
  }
  // log(u + q) = log(e^lt + q) with u = e^lt <= 1 and q >= 0: no overflow, and the absolute
  // error of a log weight (what exp() of it feels) is an ulp or two, as log1p-based log-add-exp.
  Eigen::ArrayXd& smoothed = ws.smoothed;
  ws.smoothed_full = (std::exp(t.log_threshold) + q).log().min(0.0);
  smoothed = ws.smoothed_full.head(n);
  // Tied raw ratios share the mean of their smoothed weights. Averages over consecutive runs of
  // a sorted sequence stay sorted, so the weights remain monotone in the raw ratios.
  for (Index a = 0; a < n;) {
    Index b = a + 1;
    const double value = tail_v[a];
    while (b < n && tail_v[b] == value) ++b;
    if (b - a > 1) {
      const double mean =
          log_sum_exp(smoothed.segment(a, b - a).matrix()) - std::log(static_cast<double>(b - a));
      smoothed.segment(a, b - a).setConstant(mean);
    }
    a = b;
  }
  return smoothed;
}

// lr = c - ll, *ll_max = max ll (NaN may be skipped), *lr_sum = sum lr (NaN if one is NaN), by
// packets with two accumulators each.
void ratios_max_sum(const double* c, const double* ll, Index S, double* lr, double* ll_max, double* lr_sum) {
  GridPacket mx0 = ei::pset1<GridPacket>(-kInf), mx1 = mx0;
  GridPacket sm0 = ei::pset1<GridPacket>(0.0), sm1 = sm0;
  Index s = 0;
  for (; s + 2 * kGridLanes <= S; s += 2 * kGridLanes) {
    const GridPacket l0 = ei::ploadu<GridPacket>(ll + s), l1 = ei::ploadu<GridPacket>(ll + s + kGridLanes);
    const GridPacket r0 = ei::psub(ei::ploadu<GridPacket>(c + s), l0);
    const GridPacket r1 = ei::psub(ei::ploadu<GridPacket>(c + s + kGridLanes), l1);
    ei::pstoreu(lr + s, r0);
    ei::pstoreu(lr + s + kGridLanes, r1);
    mx0 = ei::pmax(mx0, l0);
    mx1 = ei::pmax(mx1, l1);
    sm0 = ei::padd(sm0, r0);
    sm1 = ei::padd(sm1, r1);
  }
  double mx = ei::predux_max(ei::pmax(mx0, mx1)), sm = ei::predux(ei::padd(sm0, sm1));
  for (; s < S; ++s) {
    lr[s] = c[s] - ll[s];
    mx = std::max(mx, ll[s]);
    sm += lr[s];
  }
  *ll_max = mx;
  *lr_sum = sm;
}

}  // namespace

const char* to_string(ParetoStatus status) {
  switch (status) {
    case ParetoStatus::fitted:
      return "fitted";
    case ParetoStatus::too_few_tail_draws:
      return "too few tail draws";
    case ParetoStatus::zero_weight_threshold:
      return "most draws have zero weight";
    case ParetoStatus::flat_tail:
      return "flat tail (q matches p)";
    case ParetoStatus::non_finite_ratio:
      return "NaN or +inf log ratio";
  }
  return "unknown";
}

Index psis_tail_length(Index num_draws) {
  if (num_draws <= 0) return 0;
  const double S = static_cast<double>(num_draws);
  // S / 5 rather than 0.2 * S: exact whenever the result is an integer, so ceil cannot round up.
  return static_cast<Index>(std::ceil(std::min(S / 5.0, 3.0 * std::sqrt(S))));
}

GeneralizedPareto fit_generalized_pareto(const Eigen::Ref<const Eigen::VectorXd>& exceedances,
                                         bool weakly_informative_prior) {
  const Index n = exceedances.size();
  if (n < 2)
    throw std::invalid_argument("fit_generalized_pareto: needs at least 2 exceedances, got " +
                                std::to_string(n));
  if (!exceedances.allFinite() || (exceedances.array() < 0.0).any())
    throw std::invalid_argument("fit_generalized_pareto: exceedances must be finite and >= 0");
  if (!(exceedances.maxCoeff() > 0.0))
    throw std::invalid_argument("fit_generalized_pareto: all exceedances are 0");
  PsisWorkspace& ws = workspace();
  Eigen::VectorXd x = exceedances;
  return fit_generalized_pareto_workspace(x, weakly_informative_prior, ws);
}

double generalized_pareto_quantile(double p, double k, double sigma) {
  // F(x) = 1 - (1 + k x / sigma)^(-1/k)  =>  x = sigma ((1 - p)^(-k) - 1) / k
  //                                          = sigma expm1(-k log1p(-p)) / k, exact near k = 0.
  const double log_1mp = std::log1p(-p);
  if (k == 0.0) return -sigma * log_1mp;
  return sigma * std::expm1(-k * log_1mp) / k;
}

ParetoFit pareto_k_hat(const Eigen::Ref<const Eigen::VectorXd>& log_ratios) {
  return analyse_tail(log_ratios, log_ratios.sum(), workspace()).fit;
}

Eigen::VectorXd psis_log_weights(const Eigen::Ref<const Eigen::VectorXd>& log_ratios, ParetoFit* fit) {
  PsisWorkspace& ws = workspace();
  const TailAnalysis t = analyse_tail(log_ratios, log_ratios.sum(), ws);
  if (fit) *fit = t.fit;
  const Index S = log_ratios.size();
  if (t.fit.status == ParetoStatus::non_finite_ratio || (S > 0 && t.max_log_ratio == -kInf))
    return Eigen::VectorXd::Constant(S, kNaN);

  Eigen::VectorXd lw = log_ratios.array() - t.max_log_ratio;
  if (t.fit.status == ParetoStatus::fitted && std::isfinite(t.fit.k)) {
    const Index n = t.fit.tail_length;
    const std::vector<Index>& top = *t.top;
    const Eigen::ArrayXd& smoothed = smoothed_tail(t, ws);
    const std::size_t first = t.first_tail;
    for (Index z = 0; z < n; ++z) lw[top[first + static_cast<std::size_t>(z)]] = smoothed[z];
  }
  return lw.array() - log_sum_exp(lw);
}

bool psis_loo_sums(const Eigen::Ref<const Eigen::VectorXd>& log_lik,
                   const Eigen::Ref<const Eigen::VectorXd>& log_correction, PsisLooSums* out) {
  const Index S = log_lik.size();
  if (S == 0 || (log_correction.size() != 0 && log_correction.size() != S)) return false;
  PsisWorkspace& ws = workspace();
  // W_s = exp(c_s - max c), made once per correction (loo passes the same one for every row):
  // compared, not recomputed, from row to row. An empty correction is c = 0. The comparison is
  // of the bits (memcmp, vectorized: Eigen's == then all() was a scalar loop, 3 % of loo): equal
  // bits are equal values, and values equal in other bits (-0 and 0) only make W anew, the same.
  const bool no_correction = log_correction.size() == 0;
  const bool same =
      ws.correction.size() == S &&
      (no_correction ? ws.correction_zero
                     : std::memcmp(ws.correction.data(), log_correction.data(),
                                   static_cast<std::size_t>(S) * sizeof(double)) == 0);
  if (!same) {
    if (no_correction) {
      ws.correction.setZero(S);
    } else {
      if (!log_correction.allFinite()) return false;
      ws.correction = log_correction;
    }
    ws.correction_zero = no_correction;
    ws.correction_max = ws.correction.maxCoeff();
    ws.correction_weight = (ws.correction.array() - ws.correction_max).exp();
    ws.correction_weight_sum = ws.correction_weight.sum();
  }
  // log r_s = c_s - log p(y_i | theta_s) (the bits of loo_point's -log_lik + c), the largest
  // log p and the sum of the log r in one pass (they were three).
  Eigen::VectorXd& lr = ws.lr;
  lr.resize(S);
  double log_lik_max = 0, lr_sum = 0;
  ratios_max_sum(ws.correction.data(), log_lik.data(), S, lr.data(), &log_lik_max, &lr_sum);
  if (!std::isfinite(log_lik_max)) return false;  // +inf, or NaN (max may skip it: lr_sum sees it)
  const TailAnalysis t = analyse_tail(lr, lr_sum, ws);
  if (t.fit.status != ParetoStatus::fitted || !std::isfinite(t.fit.k)) return false;
  const Index n = t.fit.tail_length;
  const Index* tail = t.top->data() + t.first_tail;
  const Eigen::ArrayXd& smoothed = smoothed_tail(t, ws);
  const double max_lr = t.max_log_ratio;
  // Every draw outside the tail (lr_s <= u) keeps lw_s = lr_s - max.
  // The normalization L = log sum_s exp(lw_s), shifted by the largest lw (the tail's largest or
  // the threshold's), as psis_log_weights' log_sum_exp.
  const double shift = std::max(smoothed.maxCoeff(), t.log_threshold);
  // (Masked by zeroing the tail's entries: Eigen's select would take exp one value at a time.)
  Eigen::ArrayXd& e = ws.row_exp;
  e = (lr.array() - (max_lr + shift)).exp();
  for (Index z = 0; z < n; ++z) e[tail[z]] = 0.0;
  const double body = e.sum();
  const double L = shift + std::log(body + (smoothed - shift).exp().sum());
  // elpd_loo = log sum_s exp(lw_s - L + log p(y_i | theta_s)). Outside the tail lw_s + log p =
  // c_s - max - L: the sum there is exp(max c - max - L) sum_s W_s, with no exp per draw.
  // (W_s underflows only for draws whose correction is 745 below the largest, which weigh
  // nothing unless this row's likelihood makes up as much.)
  // sum_{s outside the tail} W_s is the row-independent sum of W less the tail's, where that
  // loses no more than a bit (the tail holds at most half of the W's sum); otherwise summed.
  double w_tail = 0;
  for (Index z = 0; z < n; ++z) w_tail += ws.correction_weight[tail[z]];
  double w_body = ws.correction_weight_sum - w_tail;
  if (!(w_body >= 0.5 * ws.correction_weight_sum)) {
    e = ws.correction_weight;
    for (Index z = 0; z < n; ++z) e[tail[z]] = 0.0;
    w_body = e.sum();
  }
  const double a_body = std::log(w_body) + (ws.correction_max - max_lr - L);
  Eigen::ArrayXd& tail_terms = ws.qa;
  tail_terms.resize(n);
  for (Index z = 0; z < n; ++z) tail_terms[z] = smoothed[z] - L + log_lik[tail[z]];
  const double m = std::max(a_body, tail_terms.maxCoeff());
  out->elpd_loo = m + std::log(std::exp(a_body - m) + (tail_terms - m).exp().sum());
  // lpd = log mean_s p(y_i | theta_s), loo_point's own arithmetic.
  out->lpd = log_lik_max + std::log((log_lik.array() - log_lik_max).exp().sum()) -
             std::log(static_cast<double>(S));
  out->fit = t.fit;
  return std::isfinite(out->elpd_loo) && std::isfinite(out->lpd);
}

}  // namespace bvi::diagnostics
