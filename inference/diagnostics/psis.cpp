#include "inference/diagnostics/psis.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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

// k(theta) = mean_i log1p(-theta x_i), the maximum likelihood k given theta = -k / sigma
// (Zhang & Stephens 2009, Sec. 2, whose k is the negative of loo's and ours).
double profile_k(double theta, const Eigen::VectorXd& x) {
  // log1p(z) = log(u) - ((u - 1) - z) / u with u = 1 + z (Goldberg 1991): the correction restores
  // what rounding 1 + z lost, to about an ulp, and Eigen's log of an array is vectorized where its
  // log1p is a scalar libm call per element. loo runs this 39 times per data row on 95 exceedances.
  const Eigen::ArrayXd z = -theta * x.array();
  const Eigen::ArrayXd u = 1.0 + z;
  return (u.log() - ((u - 1.0) - z) / u).mean();
}

// Per-thread scratch, reused from row to row (loo calls the PSIS of one data row per row: an
// allocation per row cost more than some of the arithmetic).
struct PsisWorkspace {
  std::vector<std::pair<double, Index>> pairs;  // (log ratio, draw) candidates for the tail
  std::vector<double> sample;                   // the cut's sample of every 4th draw
  std::vector<Index> top;                       // the M + 1 largest draws, ascending
  Eigen::VectorXd x;                            // exceedances
  Eigen::ArrayXd grid_z, grid_u;                // the profile's -theta x and 1 - theta x
  Eigen::ArrayXd log_1mp;                       // log1p(-(z - 1/2) / n), z = 1..n, for the last n
  Eigen::ArrayXd smoothed, q;
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
  Eigen::VectorXd theta(m), log_lik(m);
  const double mean_x = x.mean();
  for (Index j = 0; j < m; ++j)
    theta[j] = 1.0 / x_max + (1.0 - std::sqrt(static_cast<double>(m) / (static_cast<double>(j + 1) - 0.5))) /
                                 (kGridPriorScale * x_star);
  // k(theta_j) by profile_k's very operations (so the same bits), on the workspace's arrays.
  Eigen::ArrayXd& z = ws.grid_z;
  Eigen::ArrayXd& uu = ws.grid_u;
  for (Index j = 0; j < m; ++j) {
    // Profile log likelihood l(theta) = n (log(-theta / k(theta)) - k(theta) - 1); at theta = 0
    // its limit, the exponential distribution's n (-log mean(x) - 1).
    double l;
    if (theta[j] == 0.0) {
      l = static_cast<double>(n) * (-std::log(mean_x) - 1.0);
    } else {
      z = -theta[j] * x.array();
      uu = 1.0 + z;
      const double k = (uu.log() - ((uu - 1.0) - z) / uu).mean();
      l = static_cast<double>(n) * (std::log(-theta[j] / k) - k - 1.0);
    }
    log_lik[j] = std::isnan(l) ? -kInf : l;  // a point with no likelihood gets no weight
  }
  // Posterior mean of theta under the grid prior: weights exp(l_j) / sum_i exp(l_i).
  const double lse = log_sum_exp(log_lik);
  const double theta_hat = (theta.array() * (log_lik.array() - lse).exp()).sum();

  GeneralizedPareto fit;
  if (theta_hat == 0.0) {
    fit = {0.0, mean_x};  // the exponential limit of k = mean log1p(-theta x), sigma = -k / theta
  } else {
    fit.k = profile_k(theta_hat, x);
    fit.sigma = -fit.k / theta_hat;
  }
  if (weakly_informative_prior) {
    const double nd = static_cast<double>(n);
    fit.k = (nd * fit.k + kPriorObservations * kPriorK) / (nd + kPriorObservations);
  }
  return fit;
}

// Fills `pairs` with (lr[s], s) for a set of draws that holds the `keep` largest by (ratio,
// draw): all S draws, or, when a cut c taken from every 4th draw leaves at least `keep` draws
// with lr >= c, just those (the keep-th largest ratio is then >= c, so every draw of the top
// `keep` passes the cut, and the selection on the smaller set picks the same draws in the same
// order). The cut's pass is branch-free; the selection over all S draws it replaces
// mispredicted half its comparisons (loo calls this once per data row).
// Returns how many of `pairs` were filled; `pairs` keeps S entries (growing it back from the
// previous row's count would zero it again, every row).
std::size_t select_top(const Eigen::Ref<const Eigen::VectorXd>& lr, std::size_t keep,
                       std::vector<std::pair<double, Index>>& pairs, std::vector<double>& v) {
  const auto S = static_cast<std::size_t>(lr.size());
  if (pairs.size() < S) pairs.resize(S);
  const std::size_t stride = 4, sample = S / stride;
  // About twice the expected share of the top in the sample, so the cut rarely keeps too few.
  const std::size_t above = 2 * keep / stride + 1;
  if (sample > 2 * above) {
    v.resize(sample);
    for (std::size_t j = 0; j < sample; ++j) v[j] = lr[static_cast<Index>(j * stride)];
    const auto at = v.end() - static_cast<std::ptrdiff_t>(above);
    std::nth_element(v.begin(), at, v.end());
    const double c = *at;
    std::size_t n = 0;
    for (std::size_t s = 0; s < S; ++s) {
      const double x = lr[static_cast<Index>(s)];
      pairs[n] = {x, static_cast<Index>(s)};
      n += x >= c ? 1 : 0;
    }
    if (n >= keep) return n;
  }
  for (std::size_t s = 0; s < S; ++s) pairs[s] = {lr[static_cast<Index>(s)], static_cast<Index>(s)};
  return S;
}

TailAnalysis analyse_tail(const Eigen::Ref<const Eigen::VectorXd>& lr, PsisWorkspace& ws) {
  TailAnalysis t;
  const Index S = lr.size();
  // NaN or +inf anywhere. The sum is NaN or +inf if one is (-inf alone gives -inf), and a
  // vectorized sum costs less than the element-by-element test, made only when the sum is not finite.
  const double sum = lr.sum();
  if (!std::isfinite(sum) && sum != -kInf)
    for (Index s = 0; s < S; ++s)
      if (std::isnan(lr[s]) || lr[s] == kInf) return t;  // non_finite_ratio

  t.fit.status = ParetoStatus::too_few_tail_draws;
  const Index M = psis_tail_length(S);
  // Only the threshold and the tail above it are read in sorted order: a selection puts the
  // threshold draw in its place and the tail above it, and only those M + 1 are sorted (loo calls
  // this once per data row: a full sort of S indices was half of its time). The order is a strict
  // total one (ties by index), so the draws are those a full sort puts there.
  if (M < kMinTailDraws) {  // also S = 0; M < S whenever M >= 5
    if (S > 0) t.max_log_ratio = lr.maxCoeff();
    return t;
  }
  {
    // On (ratio, draw) pairs: contiguous values compare faster than indices into lr.
    std::vector<std::pair<double, Index>>& pairs = ws.pairs;
    const std::size_t keep = static_cast<std::size_t>(M + 1);
    // select_top fills (and may reallocate) `pairs`: call it before taking an iterator into it.
    const std::size_t candidates = select_top(lr, keep, pairs, ws.sample);
    const auto end = pairs.begin() + static_cast<std::ptrdiff_t>(candidates);
    const auto threshold = end - static_cast<std::ptrdiff_t>(keep);
    std::nth_element(pairs.begin(), threshold, end);  // pair's < : by ratio, ties by draw
    std::sort(threshold, end);
    ws.top.resize(keep);
    for (std::size_t j = 0; j < keep; ++j) ws.top[j] = threshold[static_cast<std::ptrdiff_t>(j)].second;
  }
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
  // (Kept scalar: k-hat is ill-conditioned in x, an ulp of x moves it by ~1e-14, and the
  // vectorized expm1 would change x by an ulp or two.)
  Eigen::VectorXd& x = ws.x;
  x.resize(n);
  for (Index j = 0; j < n; ++j) {
    const double lw = lr[top[first + static_cast<std::size_t>(j)]] - max_lr;
    x[j] = std::exp(lw) * -std::expm1(t.log_threshold - lw);
  }
  const GeneralizedPareto gpd = fit_generalized_pareto_workspace(x, /*weakly_informative_prior=*/true, ws);
  // The fit cannot give NaN for valid exceedances; if it ever does, fail safe as loo does.
  const double k = std::isnan(gpd.k) ? kInf : gpd.k;
  t.fit = {k, gpd.sigma, n, ParetoStatus::fitted};
  return t;
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
  return analyse_tail(log_ratios, workspace()).fit;
}

Eigen::VectorXd psis_log_weights(const Eigen::Ref<const Eigen::VectorXd>& log_ratios, ParetoFit* fit) {
  PsisWorkspace& ws = workspace();
  const TailAnalysis t = analyse_tail(log_ratios, ws);
  if (fit) *fit = t.fit;
  const Index S = log_ratios.size();
  if (t.fit.status == ParetoStatus::non_finite_ratio || (S > 0 && t.max_log_ratio == -kInf))
    return Eigen::VectorXd::Constant(S, kNaN);

  Eigen::VectorXd lw = log_ratios.array() - t.max_log_ratio;
  if (t.fit.status == ParetoStatus::fitted && std::isfinite(t.fit.k)) {
    const Index n = t.fit.tail_length;
    const std::vector<Index>& top = *t.top;
    const double k = t.fit.k, sigma = t.fit.sigma;
    // Smoothed tail in the raw ratios' order: log(u + F^{-1}((z - 1/2) / n)) on the scale where
    // the largest raw ratio is 1, truncated there (Vehtari et al. 2024, Sec. 3), for z = 1..n at
    // once. log1p(-p_z) depends on n alone (95 for every row when S = 1000): kept from the last row.
    Eigen::ArrayXd& log_1mp = ws.log_1mp;
    if (log_1mp.size() != n) {
      log_1mp.resize(n);
      for (Index z = 0; z < n; ++z)
        log_1mp[z] = std::log1p(-(static_cast<double>(z) + 0.5) / static_cast<double>(n));
    }
    // F^{-1}(p) = sigma expm1(-k log1p(-p)) / k (generalized_pareto_quantile), with expm1(a) =
    // (e^a - 1) a / log(e^a) (Kahan's trick, to an ulp or two; a itself where e^a rounds to 1),
    // which Eigen vectorizes where std::expm1 is a call per value.
    Eigen::ArrayXd& q = ws.q;
    if (k == 0.0) {
      q = -sigma * log_1mp;
    } else {
      const Eigen::ArrayXd a = -k * log_1mp;
      const Eigen::ArrayXd e = a.exp();
      // e = 0 or +inf (|k| > 100, not a fit PSIS makes): expm1 is -1 or +inf, what e - 1 gives.
      q = (e == 1.0).select(a, (e == 0.0 || e == kInf).select(e - 1.0, (e - 1.0) * a / e.log()));
      q = q * sigma / k;
    }
    // log(u + q) = log(e^lt + q) with u = e^lt <= 1 and q >= 0: no overflow, and the absolute
    // error of a log weight (what exp() of it feels) is an ulp or two, as log1p-based log-add-exp.
    Eigen::ArrayXd& smoothed = ws.smoothed;
    smoothed = (std::exp(t.log_threshold) + q).log().min(0.0);
    // Tied raw ratios share the mean of their smoothed weights. Averages over consecutive runs of
    // a sorted sequence stay sorted, so the weights remain monotone in the raw ratios.
    const std::size_t first = t.first_tail;
    for (Index a = 0; a < n;) {
      Index b = a + 1;
      const double value = log_ratios[top[first + static_cast<std::size_t>(a)]];
      while (b < n && log_ratios[top[first + static_cast<std::size_t>(b)]] == value) ++b;
      if (b - a > 1) {
        const double mean =
            log_sum_exp(smoothed.segment(a, b - a).matrix()) - std::log(static_cast<double>(b - a));
        smoothed.segment(a, b - a).setConstant(mean);
      }
      a = b;
    }
    for (Index z = 0; z < n; ++z) lw[top[first + static_cast<std::size_t>(z)]] = smoothed[z];
  }
  return lw.array() - log_sum_exp(lw);
}

}  // namespace bvi::diagnostics
