#pragma once
// loo and kfold refuse a config with row weights: a weighted fit's pointwise elpd has no standard
// meaning (w_i elpd_i is neither the elpd of the duplicated rows, whose leave-one-out drops one
// copy at a time, nor that of the survey population), so they say so instead of guessing.
#include <string>

#include "common/error.hpp"
#include "models/spec/config.hpp"

namespace bvi::cli {

inline void refuse_weights(const spec::Config& config, const std::string& command) {
  if (config.data.weights)
    throw config_error("/data/weights", command + " does not support row weights (a weighted row's pointwise elpd "
                                                   "has no standard meaning); remove /data/weights to run it");
}

}  // namespace bvi::cli
