#pragma once
// The data a model is fitted to: the response and the feature columns chosen by name from a
// CSV file, optionally standardized, as a block of rows (all of them, or one shard).
#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "models/data/row_matrix.hpp"
#include "models/data/row_parser.hpp"

namespace bvi::data {

class CsvReader;

// What the config's "data" section asks for (paths already resolved).
struct DataSpec {
  std::string path;
  std::string response;
  std::optional<std::vector<std::string>> features;  // default: every column but the response
  bool standardize = false;
};

struct RowRange {
  Eigen::Index first = 0;
  Eigen::Index count = 0;
};

template <class T>
struct Dataset {
  std::string path;
  std::string response_name;
  std::vector<std::string> feature_names;
  RowMatrix<T> x;  // local rows x features
  Eigen::VectorXd y;
  Eigen::Index total_rows = 0;    // in the whole file
  Eigen::Index first_row = 0;     // global index of x's first row
  Eigen::VectorXd center, scale;  // when standardized: x = (raw - center) / scale; else empty
};

// Column indexes of a spec's response and features in the header. Data errors at FILE:1: a
// name that is not there, a name that is there twice, a column chosen twice.
struct ColumnSelection {
  int response = -1;
  std::vector<int> features;
  std::vector<std::string> feature_names;
};
ColumnSelection select_columns(const CsvReader& reader, const DataSpec& spec);

// Loads rows [first, first + count) (default: all) of the spec's columns. `check` judges each
// response value. With standardize, the statistics come from the loaded rows for now (all of
// them by default), and a constant feature is an error at FILE:1.
template <class T>
Dataset<T> load_dataset(const DataSpec& spec, const ResponseCheck& check, std::optional<RowRange> rows = {});

}  // namespace bvi::data
