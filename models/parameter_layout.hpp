#pragma once
// Where each model parameter lives in a draw vector. Draws are S x P matrices (one row per draw),
// column-major, so each parameter block is a contiguous run of columns. Order and names follow
// CmdStan's CSV: alpha, beta.1 ... beta.D.
#include <Eigen/Core>
#include <string>
#include <vector>

#include "inference/ad/ops/constrain.hpp"
#include "models/priors/prior_family.hpp"

namespace bvi::models {

using Index = Eigen::Index;

struct ParameterBlock {
  std::string name;
  Index offset = 0;
  Index size = 1;
  bool is_vector = false;           // names get ".1" ... ".size"
  std::vector<std::string> labels;  // per element, e.g. the feature names of beta (may be empty)
  Support support = Support::real;      // where the constrained values lie
  ad::ColumnTransform transform = {};  // from the unconstrained scale
  // Per element when not empty: CSV names (r_county.3.1, cor_county.2.1) instead of name.i, and
  // transforms (a block transform such as cholesky_corr) instead of `transform`.
  std::vector<std::string> names = {};
  std::vector<ad::ColumnTransform> transforms = {};
};

class ParameterLayout {
 public:
  void add(ParameterBlock block) {
    block.offset = dim_;
    dim_ += block.size;
    blocks_.push_back(std::move(block));
  }
  Index dim() const { return dim_; }
  const std::vector<ParameterBlock>& blocks() const { return blocks_; }
  const ParameterBlock* find(const std::string& name) const {
    for (const auto& b : blocks_)
      if (b.name == name) return &b;
    return nullptr;
  }
  // CmdStan column names: "alpha", "beta.1", ...
  std::vector<std::string> column_names() const {
    std::vector<std::string> out;
    for (const auto& b : blocks_) {
      if (!b.names.empty())
        out.insert(out.end(), b.names.begin(), b.names.end());
      else if (!b.is_vector)
        out.push_back(b.name);
      else
        for (Index i = 0; i < b.size; ++i) out.push_back(b.name + "." + std::to_string(i + 1));
    }
    return out;
  }
  // One transform per column, for ad::constrain.
  std::vector<ad::ColumnTransform> column_transforms() const {
    std::vector<ad::ColumnTransform> out;
    for (const auto& b : blocks_)
      for (Index i = 0; i < b.size; ++i) out.push_back(b.transforms.empty() ? b.transform : b.transforms[i]);
    return out;
  }
  // Whether a block's columns share one transform (cholesky_corr, ordered).
  bool has_block_transform() const {
    for (const auto& t : column_transforms())
      if (ad::is_block_transform(t)) return true;
    return false;
  }
  bool all_unconstrained() const {
    for (const auto& t : column_transforms())
      if (t.bound != ad::Bound::none) return false;
    return true;
  }

  // categorical_logit: its K categories and the reference one (1 ... K), whose linear predictor
  // is 0; the other K - 1 have alpha.k and beta.k.j. K = 0: not categorical, or not known yet
  // (the data reader's probe layout).
  void set_categories(int K, int reference) {
    categories_ = K;
    reference_ = reference;
  }
  int categories() const { return categories_; }
  int reference_category() const { return reference_; }

  // The label of each column (a feature name, or "" when the parameter has none).
  std::vector<std::string> column_labels() const {
    std::vector<std::string> out;
    for (const auto& b : blocks_)
      for (Index i = 0; i < b.size; ++i) out.push_back(i < Index(b.labels.size()) ? b.labels[i] : "");
    return out;
  }

 private:
  std::vector<ParameterBlock> blocks_;
  Index dim_ = 0;
  int categories_ = 0, reference_ = 1;
};

}  // namespace bvi::models
