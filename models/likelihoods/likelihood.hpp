#pragma once
// An observation model as one self-contained piece: what responses it accepts, and the per-draw
// log likelihood of a block of rows on the AD tape. Adding a likelihood means adding one
// implementation of this interface and one line in make_likelihood().
#include <memory>
#include <string>
#include <vector>

#include "inference/ad/var.hpp"
#include "models/parameter_layout.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

// A block of m consecutive data rows: features row-major (m x D), responses.
template <class T>
struct DataBlock {
  const T* x = nullptr;
  const double* y = nullptr;
  Index rows = 0;
  Index cols = 0;
};

class Likelihood {
 public:
  virtual ~Likelihood() = default;
  virtual std::string name() const = 0;
  // "" when y is a valid response, else why not ("response must be 0 or 1, got 2").
  virtual std::string check_response(double y) const = 0;
  // Per-draw log likelihood of the block, S x 1, with every constant. `params` holds the S draws
  // of all parameters on the constrained scale, in the layout's columns.
  virtual ad::Var log_lik(const ad::Var& params, const DataBlock<double>& block) const = 0;
  virtual ad::Var log_lik(const ad::Var& params, const DataBlock<float>& block) const = 0;
};

struct LikelihoodOptions {
  bool fused = true;  // the hand-derived primitive; false: composed from the generic AD ops
};

// The parameters a likelihood brings into the model besides alpha and beta (the normal
// likelihood's sigma), declared as if the config had listed them in /model/parameters.
std::vector<spec::ParameterConfig> likelihood_parameters(const std::string& name);

// Builds the likelihood named in the config for the given parameter layout.
std::unique_ptr<Likelihood> make_likelihood(const std::string& name, const ParameterLayout& layout,
                                            const LikelihoodOptions& options);

}  // namespace bvi::models
