#pragma once
// The sparse family's precision pattern for a model and its data (inference/sparse/block_pattern.hpp):
// the model's group effects by factor, and for every two factors the level pairs that share a row
// (crossed or nested factors), gathered over every rank so that the pattern, and so the
// factorization's ordering, is the same everywhere.
#include <memory>

#include "inference/reduce/communicator.hpp"
#include "inference/sparse/block_pattern.hpp"
#include "models/data_view.hpp"
#include "models/model.hpp"

namespace bvi::models {

template <class T>
std::shared_ptr<const vi::BlockPattern> make_block_pattern(const Model& model, const DataView<T>& data,
                                                           reduce::Communicator& comm);

}  // namespace bvi::models

namespace bvi::models {

// Whether the sparse family can fit the model: it has group effects, and every prior term is
// exact under a Gaussian q (no sample-average terms: five or more correlated effects under an
// LKJ prior and priors whose hyperparameters are parameters other than hierarchical scales are
// not yet).
bool sparse_family_fits(const Model& model);

}  // namespace bvi::models

namespace bvi::spec {
struct Config;
}

namespace bvi::models {

// A config that asks for the sparse family for a model it cannot fit: Error(config) at
// /inference/algorithm, saying which family to use instead.
void refuse_unfit_sparse(const spec::Config& config, const Model& model);

}  // namespace bvi::models
