#pragma once
// The `response` line(s) of `check`, by what the likelihood's response is: class balance for
// 0/1 responses, totals and range for counts (and the trials of a binomial), mean, sd and range
// for real numbers. Every rank calls it; the statistics cover the whole file.
#include <string>

#include "inference/reduce/communicator.hpp"
#include "models/data/dataset.hpp"
#include "models/likelihoods/likelihood.hpp"

namespace bvi::cli {

// `levels` and `reference`: categorical_logit's K (the data's largest category, or more when the
// config says so: every category is listed) and reference category (0: none).
template <class T>
std::string response_summary(const data::Dataset<T>& d, models::ResponseKind kind, bool trials, bool offset,
                             reduce::Communicator& comm, int levels = 0, int reference = 0);

// The `weights` line of `check` for a weighted model: the column, the weights' sum, range and
// how many rows weigh 0, over the whole file.
template <class T>
std::string weights_summary(const data::Dataset<T>& d, const std::string& column, reduce::Communicator& comm);

}  // namespace bvi::cli
