#include "inference/sparse/hessian_probes.hpp"

#include <stdexcept>

namespace bvi::vi {

namespace {

// Per level of one side of a pair: whether it shares rows with at most one level of the other.
// `levels` is sorted and unique (BlockPattern's constructor).
bool first_side_unique(const BlockPattern::Pair& pair) {
  for (std::size_t at = 1; at < pair.levels.size(); ++at)
    if (pair.levels[at].first == pair.levels[at - 1].first) return false;
  return true;
}

bool second_side_unique(const BlockPattern::Pair& pair, Index groups2) {
  std::vector<char> seen(static_cast<std::size_t>(groups2), 0);
  for (const auto& [g1, g2] : pair.levels) {
    (void)g1;
    char& s = seen[static_cast<std::size_t>(g2)];
    if (s) return false;
    s = 1;
  }
  return true;
}

}  // namespace

std::vector<std::size_t> HessianProbes::crossed_pairs(const BlockPattern& pattern) {
  std::vector<std::size_t> out;
  for (std::size_t p = 0; p < pattern.pairs().size(); ++p) {
    const BlockPattern::Pair& pair = pattern.pairs()[p];
    const Index groups2 = pattern.factors()[static_cast<std::size_t>(pair.f2)].groups;
    if (!first_side_unique(pair) && !second_side_unique(pair, groups2)) out.push_back(p);
  }
  return out;
}

std::string HessianProbes::why_not(const BlockPattern& pattern) {
  const std::vector<std::size_t> crossed = crossed_pairs(pattern);
  if (crossed.empty()) return "";
  const BlockPattern::Pair& pair = pattern.pairs()[crossed.front()];
  return "grouping factors " + std::to_string(pair.f1 + 1) + " and " + std::to_string(pair.f2 + 1) +
         " are crossed (a level of each shares rows with several levels of the other)";
}

HessianProbes::HessianProbes(std::shared_ptr<const BlockPattern> pattern, bool crossed_supplied)
    : pattern_(std::move(pattern)), crossed_supplied_(crossed_supplied) {
  const std::string why = why_not(*pattern_);
  if (!why.empty() && !crossed_supplied_) throw std::invalid_argument("hessian probes: " + why);
  const Index P = pattern_->dim();
  const auto& factors = pattern_->factors();
  probe_.assign(static_cast<std::size_t>(P), -1);
  factor_.assign(static_cast<std::size_t>(P), -1);
  for (Index j : pattern_->globals()) {
    probe_[static_cast<std::size_t>(j)] = count();
    columns_.push_back({j});
  }
  for (std::size_t f = 0; f < factors.size(); ++f) {
    const BlockPattern::Factor& fac = factors[f];
    for (Index k = 0; k < fac.effects; ++k) {
      std::vector<Index> cols;
      cols.reserve(static_cast<std::size_t>(fac.groups));
      for (Index g = 0; g < fac.groups; ++g) {
        const Index col = fac.offset + g * fac.effects + k;
        probe_[static_cast<std::size_t>(col)] = count();
        factor_[static_cast<std::size_t>(col)] = static_cast<int>(f);
        cols.push_back(col);
      }
      columns_.push_back(std::move(cols));
    }
  }
  // Factors without a pair share no row: every entry between them is 0 and never read.
  unique_partner_.assign(factors.size(), std::vector<char>(factors.size(), 1));
  for (const BlockPattern::Pair& pair : pattern_->pairs()) {
    const auto f1 = static_cast<std::size_t>(pair.f1), f2 = static_cast<std::size_t>(pair.f2);
    unique_partner_[f1][f2] = first_side_unique(pair);
    unique_partner_[f2][f1] = second_side_unique(pair, factors[f2].groups);
  }
}

bool HessianProbes::readable(Index i, Index k) const {
  const int fk = factor_[static_cast<std::size_t>(k)];
  if (fk < 0) return true;  // a global's probe is e_k alone
  const int fi = factor_[static_cast<std::size_t>(i)];
  if (fi < 0)
    return pattern_->factors()[static_cast<std::size_t>(fk)].groups == 1;  // a global's row sees every group
  if (fi == fk) return true;  // two groups of one factor share nothing
  return unique_partner_[static_cast<std::size_t>(fi)][static_cast<std::size_t>(fk)] != 0;
}

void HessianProbes::assemble(const Eigen::Ref<const Eigen::MatrixXd>& products, const Eigen::VectorXd& step,
                             Eigen::VectorXd& values) const {
  values.resize(pattern_->size());
  pattern_->for_each_slot([&](Index i, Index k, Index slot) {
    const bool a = readable(i, k), b = readable(k, i);
    const double ik = a ? products(probe_[static_cast<std::size_t>(k)], i) / step[k] : 0.0;
    const double ki = b ? products(probe_[static_cast<std::size_t>(i)], k) / step[i] : 0.0;
    // Neither product holds it alone only between two factors' effects whose pair is crossed (a
    // global's probe is e_k; one factor's groups share no row; a pair with a unique partner is
    // read from that side), and those entries are the caller's when crossed_supplied_.
    if (!a && !b && !crossed_supplied_) throw std::logic_error("hessian probes: an entry no product holds alone");
    values[slot] = a && b ? 0.5 * (ik + ki) : a ? ik : b ? ki : 0.0;
  });
}

}  // namespace bvi::vi
