#pragma once
// What predict and loo share: a fit made by `fit --output DIR` checked against the config it is
// applied with (the same likelihood, terms and parameters), and rows of data read with the fit's
// design (standardized with the fit's statistics, levels mapped to the fit's), ready for
// models::predict or the pointwise log likelihoods.
#include <memory>
#include <string>
#include <vector>

#include "models/design/design.hpp"
#include "models/fit_result.hpp"
#include "models/model.hpp"
#include "models/prediction.hpp"
#include "models/prediction_rows.hpp"
#include "models/spec/config.hpp"

namespace bvi::cli {

struct FitForConfig {
  models::FitResult fit;
  models::design::Design design;
  std::unique_ptr<models::Model> model;  // the config's model with the fit's layout
};

// Reads DIR's fit and checks it against `config` (filling the config's default priors). Errors:
// 66 when the fit cannot be read, 65 when it is not a bayes-vi fit, 78 when the config's model is
// not the fit's (another likelihood, other terms or parameters) or predict does not support it.
FitForConfig load_fit_for_config(spec::Config& config, const std::string& fit_dir);

// Reads `path` with the fit's design; rows with a missing value are an error (65) unless
// /data/missing is "drop" (the message ends "with /data/missing "drop" WHEN_DROPPED"), and so is
// a row that standardization makes non-finite.
models::PredictionRows read_fit_rows(const FitForConfig& f, const spec::Config& config,
                                     const std::string& path, const std::string& when_dropped);

// The check read_fit_rows makes of rows read otherwise (a range at a time): every standardized
// value finite (65 naming the fit's summary otherwise).
void check_standardized_rows(const FitForConfig& f, const models::PredictionRows& rows);

// The rows as models::predict takes them (`rows` must outlive the result): new groups' effects
// drawn with `seed` (logged when there are any).
models::PredictRows predict_rows_of(const FitForConfig& f, const models::PredictionRows& rows,
                                    std::uint64_t seed);

}  // namespace bvi::cli
