#pragma once
// The data a model is fitted to: the response and the feature columns chosen by name from a
// CSV file, optionally standardized, as a block of rows (all of them, or one shard).
#include <Eigen/Core>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/data/group_data.hpp"
#include "models/data/row_matrix.hpp"
#include "models/data/row_parser.hpp"

namespace bvi::data {

class CsvReader;

// What the config's "data" section asks for (paths already resolved).
struct DataSpec {
  std::string path;
  std::string response;
  // Default: every column but the response and the trials, offset and exposure columns.
  std::optional<std::vector<std::string>> features;
  bool standardize = false;
  // Columns some likelihoods read besides, always as double: the number of trials of each row
  // (non-negative integers), an offset added to the linear predictor (any finite number), an
  // exposure whose log is added (positive).
  std::optional<std::string> trials = {}, offset = {}, exposure = {};
  // Non-negative row weights (any likelihood), read as double; never a feature.
  std::optional<std::string> weights = {};
};

struct RowRange {
  Eigen::Index first = 0;
  Eigen::Index count = 0;
};

template <class T>
struct Dataset {
  std::string path;
  std::string response_name;
  std::vector<std::string> response_levels;  // the ordinal response's labels (/data/levels), else empty
  std::vector<std::string> feature_names;  // the design columns ("x", "sex[male]", "x:sex[male]")
  RowMatrix<T> x;  // local rows x features
  Eigen::VectorXd y;
  Eigen::Index total_rows = 0;    // rows used, in the whole file
  Eigen::Index first_row = 0;     // global index of x's first row (when no row was dropped)
  Eigen::VectorXd center, scale;  // when standardized: x = (raw - center) / scale; else empty
  Eigen::VectorXd trials;         // the trials column, when the spec names one; else empty
  // offset + log(exposure) per row, when the spec names either (both: they add); else empty.
  Eigen::VectorXd offset;
  Eigen::VectorXd weight;  // each row's log-likelihood weight, when the spec names a column; else empty
  std::vector<GroupData<T>> groups;  // the grouping factors of group-level terms
  // The local rows of each chunk this process holds (reduce::ShardPlan's chunks of file records):
  // chunk first_chunk + k is rows [chunk_offsets[k], chunk_offsets[k + 1]). Rows left out for
  // missing values shorten their chunk; the cut into chunks stays the file's. Empty: the plan's
  // own rows, from first_row.
  Eigen::Index first_chunk = 0;
  std::vector<Eigen::Index> chunk_offsets;
  Eigen::Index file_rows = 0;     // data records in the file
  Eigen::Index dropped_rows = 0;  // records left out for a missing value, in the whole file
  long first_dropped_line = 0;    // the first of them
  std::string first_dropped_what;
};

// Column indexes of a spec's response and features in the header. Data errors at FILE:1: a
// name that is not there, a name that is there twice, a column chosen twice.
struct ColumnSelection {
  int response = -1;
  std::vector<int> features;
  std::vector<std::string> feature_names;
  int trials = -1, offset = -1, exposure = -1, weights = -1;  // -1: not asked for
};
ColumnSelection select_columns(const CsvReader& reader, const DataSpec& spec);

// The value rules of the trials and exposure columns: "" when v is fine, else why not (the
// reader prefixes FILE:LINE and the column). Shared by load_dataset and predict.
std::string check_trials(double v);
std::string check_exposure(double v);
// A weight must be finite and >= 0 (0 leaves the row out).
std::string check_weight(double v);

// The response judged against its row's number of trials (binomial: y <= trials); "" when fine.
using TrialsCheck = std::function<std::string(double y, double trials)>;

// Loads rows [first, first + count) (default: all) of the spec's columns. `check` judges each
// response value, and `against_trials` each response against its row's trials when the spec
// names a trials column. Trials must be non-negative integers and exposures positive, each a
// data error at its FILE:LINE. With standardize, the statistics come from the loaded rows for
// now (all of them by default), and a constant feature is an error at FILE:1.
template <class T>
Dataset<T> load_dataset(const DataSpec& spec, const ResponseCheck& check, std::optional<RowRange> rows = {},
                        const TrialsCheck& against_trials = {});

}  // namespace bvi::data
