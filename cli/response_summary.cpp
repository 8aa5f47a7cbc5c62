#include "cli/response_summary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common/number_text.hpp"

namespace bvi::cli {

namespace {

// Sums of this rank's values over all ranks, added in rank order (the same bits however the
// file is sharded): allgatherv, then a sum.
template <int N>
std::array<double, N> sum_over_ranks(const std::array<double, N>& local, reduce::Communicator& comm) {
  std::vector<double> all(static_cast<std::size_t>(N * comm.size()));
  comm.allgatherv(local.data(), std::vector<long>(static_cast<std::size_t>(comm.size()), N), all.data());
  std::array<double, N> out{};
  for (int r = 0; r < comm.size(); ++r)
    for (int i = 0; i < N; ++i) out[i] += all[static_cast<std::size_t>(r * N + i)];
  return out;
}

// Min and max over all ranks (max of the negated minimum); +-inf for no rows.
std::array<double, 2> range_over_ranks(const Eigen::VectorXd& v, reduce::Communicator& comm) {
  double mm[2] = {v.size() ? -v.minCoeff() : -std::numeric_limits<double>::infinity(),
                  v.size() ? v.maxCoeff() : -std::numeric_limits<double>::infinity()};
  comm.allreduce_max(mm, 2);
  return {-mm[0], mm[1]};
}

// A total of counts, summed in double: exact as an integer below 2^53, and past it (a count may be
// any integer-valued double the likelihood takes, 1e19 or 1e300) its shortest text, where
// llround would overflow long long at 2^63 and print -9223372036854775808.
std::string count_total_text(double v) {
  if (std::abs(v) < 9007199254740992.0) return std::to_string(std::llround(v));
  return shortest_text(v);
}

}  // namespace

template <class T>
std::string response_summary(const data::Dataset<T>& d, models::ResponseKind kind, bool trials, bool offset,
                             reduce::Communicator& comm, int levels, int reference) {
  const double n = static_cast<double>(d.total_rows);
  std::ostringstream os;
  os.precision(4);
  os << "response    " << d.response_name << ": ";
  if (kind == models::ResponseKind::binary) {
    const double ones = sum_over_ranks<1>({d.y.sum()}, comm)[0];
    // With /data/levels, [failure, success]: "68 of 200 are 1 (Yes; 34 %)".
    const std::vector<std::string>& labels = d.response_levels;
    os << static_cast<long long>(ones) << " of " << d.total_rows << " are 1 ("
       << (labels.size() == 2 ? labels[1] + "; " : std::string()) << 100.0 * ones / n << " %)\n";
    return os.str();
  }
  const auto [lo, hi] = range_over_ranks(d.y, comm);
  if (kind == models::ResponseKind::ordinal || kind == models::ResponseKind::categorical) {
    // The count per category 1 ... K (K the largest; categories never observed show 0), summed
    // over ranks in rank order.
    // With /data/levels (ordinal): K is the list's length and each count is named by its label;
    // categorical_logit's K is at least /model/categories (`levels`).
    const std::vector<std::string>& labels = d.response_levels;
    const int K = !labels.empty() ? static_cast<int>(labels.size())
                                  : std::max(hi >= 1 && std::isfinite(hi) ? static_cast<int>(hi) : 0, levels);
    std::vector<double> local(static_cast<std::size_t>(K), 0.0), all(static_cast<std::size_t>(K * comm.size()));
    for (Eigen::Index i = 0; i < d.y.size(); ++i) local[static_cast<std::size_t>(d.y[i]) - 1] += 1.0;
    comm.allgatherv(local.data(), std::vector<long>(static_cast<std::size_t>(comm.size()), K), all.data());
    os << K << (kind == models::ResponseKind::ordinal ? " ordered" : " unordered") << " categories";
    if (reference > 0)
      os << " (reference "
         << (reference <= K && !labels.empty() ? labels[static_cast<std::size_t>(reference - 1)]
                                               : std::to_string(reference))
         << ")";
    os << "; rows per category:";
    for (int k = 0; k < K; ++k) {
      double c = 0.0;
      for (int r = 0; r < comm.size(); ++r) c += all[static_cast<std::size_t>(r * K + k)];
      os << " " << (labels.empty() ? std::to_string(k + 1) : labels[static_cast<std::size_t>(k)]) << ": "
         << static_cast<long long>(c) << (k + 1 < K ? "," : "");
    }
    os << "\n";
    return os.str();
  }
  if (kind == models::ResponseKind::count) {
    const auto s = sum_over_ranks<2>({d.y.sum(), d.trials.sum()}, comm);
    os << "counts " << lo << " to " << hi << ", total " << count_total_text(s[0]) << ", mean " << s[0] / n;
    if (!trials) {
      // The variance beside the mean: a Poisson's are equal, so their ratio is the overdispersion a
      // negative binomial would take up (Var = mu + mu^2 / phi).
      const double mean = s[0] / n;
      const double ss = sum_over_ranks<1>({(d.y.array() - mean).square().sum()}, comm)[0];
      const double var = ss / std::max(n - 1.0, 1.0);
      os << ", variance " << var;
      if (mean > 0) os << " (" << var / mean << " x the mean)";
    }
    os << "\n";
    if (trials) {
      const auto [tlo, thi] = range_over_ranks(d.trials, comm);
      os << "trials      " << tlo << " to " << thi << " per row, total " << count_total_text(s[1]) << ", "
         << 100.0 * s[0] / s[1] << " % successes\n";
    }
  } else {
    const auto s = sum_over_ranks<1>({d.y.sum()}, comm);
    const double mean = s[0] / n;
    const double ss = sum_over_ranks<1>({(d.y.array() - mean).square().sum()}, comm)[0];
    os << "mean " << mean << ", sd " << std::sqrt(ss / std::max(n - 1.0, 1.0)) << ", range " << lo << " to "
       << hi << "\n";
    if (kind == models::ResponseKind::positive) {
      // On the log scale as well: lognormal's eta is the mean of log y, and sd(log y) is where
      // its sigma starts (gamma_log: a shape alpha gives sd(log y) near 1 / sqrt(alpha)).
      const auto l = sum_over_ranks<1>({d.y.array().log().sum()}, comm);
      const double lmean = l[0] / n;
      const double lss = sum_over_ranks<1>({(d.y.array().log() - lmean).square().sum()}, comm)[0];
      os << "log y       mean " << lmean << ", sd " << std::sqrt(lss / std::max(n - 1.0, 1.0))
         << " (geometric mean " << std::exp(lmean) << ")\n";
    }
  }
  if (offset) {
    const auto [olo, ohi] = range_over_ranks(d.offset, comm);
    os << "offset      offset + log(exposure) from " << olo << " to " << ohi << "\n";
  }
  return os.str();
}

template <class T>
std::string weights_summary(const data::Dataset<T>& d, const std::string& column, reduce::Communicator& comm) {
  const auto s = sum_over_ranks<2>({d.weight.sum(), static_cast<double>((d.weight.array() == 0.0).count())}, comm);
  const auto [lo, hi] = range_over_ranks(d.weight, comm);
  std::ostringstream os;
  os.precision(6);
  os << "weights     " << column << ": sum " << s[0] << ", min " << lo << ", max " << hi << ", "
     << std::llround(s[1]) << " of " << d.total_rows << " rows weigh 0\n";
  return os.str();
}

template std::string weights_summary<double>(const data::Dataset<double>&, const std::string&,
                                             reduce::Communicator&);
template std::string weights_summary<float>(const data::Dataset<float>&, const std::string&, reduce::Communicator&);

template std::string response_summary<double>(const data::Dataset<double>&, models::ResponseKind, bool, bool,
                                              reduce::Communicator&, int, int);
template std::string response_summary<float>(const data::Dataset<float>&, models::ResponseKind, bool, bool,
                                             reduce::Communicator&, int, int);

}  // namespace bvi::cli
