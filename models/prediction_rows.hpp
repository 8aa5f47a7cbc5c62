#pragma once
// The rows `predict` applies a fit to, read from a CSV file (the config's data or new rows) with
// the fit's design: its variables by name (other columns ignored), numeric ones standardized with
// the fit's statistics, categorical ones mapped to the fit's levels, the design columns built as
// in the fit. A level of a population-level term the fit never saw is a data error at its
// FILE:LINE: the fit has no coefficient for it. A group the fit never saw is a new group, whose
// effects predict draws from the fitted population distribution (prediction.hpp).
#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/data/row_matrix.hpp"
#include "models/data/table_reader.hpp"
#include "models/design/design.hpp"
#include "models/likelihoods/likelihood.hpp"
#include "models/spec/config.hpp"

namespace bvi::models {

struct PredictionGroup {
  // Per row: the group's index among the fit's groups, or -(j + 1) for the j-th new group.
  std::vector<std::int32_t> level;
  data::RowMatrix<double> slopes;       // rows x the group term's slopes
  std::vector<std::string> new_levels;  // the new groups, in order of first appearance
};

struct PredictionRows {
  data::RowMatrix<double> x;  // rows x design columns
  Eigen::VectorXd y;          // when the file has the response column
  Eigen::VectorXd trials;     // binomial_logit
  Eigen::VectorXd offset;     // offset + log exposure, when the fit had either
  Eigen::VectorXd weight;     // the fit's weights column, when the fit had one and this file has it
  std::vector<PredictionGroup> groups;
  std::vector<Eigen::Index> record;  // each row's record in the file (0-based)
  Eigen::Index records = 0;          // records in the file
  Eigen::Index missing = 0;          // records left out for a missing value
  long first_missing_line = 0;
  std::string first_missing_what;
};

// Reads `path` for the fit's `design` a range of records at a time (loo streams the rows): the
// header checked and the file scanned once, at construction; `design` and `likelihood` must
// outlive the reader. Errors as read_prediction_rows's.
class PredictionRowsReader {
 public:
  PredictionRowsReader(const std::string& path, const design::Design& design, const std::string& response,
                       const spec::DataConfig& data, const Likelihood& likelihood);
  ~PredictionRowsReader();
  Eigen::Index records() const { return records_; }
  bool has_response() const { return spec_.response >= 0; }
  long first_data_line() const;
  // Records [begin, end) (0-based); `begin` a multiple of `chunk` (read_table's chunks). The
  // result's `record` and line numbers are the file's; `records` is end - begin. Groups the fit
  // never saw are numbered within the range.
  PredictionRows read(Eigen::Index begin, Eigen::Index end, Eigen::Index chunk) const;

 private:
  std::string path_;
  const design::Design& design_;
  std::unique_ptr<data::CsvReader> reader_;
  data::TableSpec spec_;
  std::vector<bool> fixed_;
  std::vector<int> numeric_vars_, categorical_vars_;
  int trials_slot_ = -1, offset_slot_ = -1, exposure_slot_ = -1, weight_slot_ = -1;
  Eigen::Index records_ = 0;
};

// Reads `path` for the fit's `design`. `response` is read when the file has that column. Rows with
// a missing cell in a used column are left out and counted (the caller decides what that means).
PredictionRows read_prediction_rows(const std::string& path, const design::Design& design,
                                    const std::string& response, const spec::DataConfig& data,
                                    const Likelihood& likelihood);

}  // namespace bvi::models
