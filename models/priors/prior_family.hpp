#pragma once
// A prior distribution family as one self-contained piece: its hyperparameters (validated and
// documented through the schema), its support, and its elementwise log density on the AD tape.
// Adding a prior means adding one file that defines a PriorFamily and listing it in registry.cpp.
#include <string>
#include <vector>

#include "inference/ad/var.hpp"
#include "models/spec/schema.hpp"

namespace bvi::models {

enum class Support { real, positive, unit_interval };

struct PriorFamily {
  std::string name;     // the config key, e.g. "normal"
  std::string formula;  // the reference's title, e.g. "Normal(loc, scale)"
  std::string density;  // the reference's one-line log density, every constant shown
  Support support;
  std::vector<spec::Field> hyperparameters;  // in the order log_density takes them
  // Elementwise log density with every normalizing constant. `x` is S x K (draws x coefficients);
  // `hypers` points to one Var per hyperparameter, each 1 x 1, 1 x K (per coefficient) or S x 1
  // (a per-draw parameter).
  ad::Var (*log_density)(const ad::Var& x, const ad::Var* hypers);
  // Optional closed form of E log p(x) for x ~ N(mean_j, var_j), coordinate by coordinate, with
  // numeric hyperparameters (hypers[k] points to hyper_sizes[k] values: 1, broadcast, or n), and
  // its derivatives in mean and var, for the exact method on an unconstrained parameter. Null:
  // the exact method integrates log_density by quadrature.
  void (*gaussian_expectation)(const double* mean, const double* var, Eigen::Index n, const double* const* hypers,
                               const Eigen::Index* hyper_sizes, double* value, double* d_mean,
                               double* d_var) = nullptr;
};

// No family takes more (student_t: df, loc, scale).
inline constexpr std::size_t kMaxHyperparameters = 4;

const std::vector<const PriorFamily*>& prior_families();
const PriorFamily* find_prior_family(const std::string& name);  // nullptr when unknown

}  // namespace bvi::models
