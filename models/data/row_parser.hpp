#pragma once
// One data record to one row of output: the selected fields parsed as numbers, the response
// checked, and every failure reported as FILE:LINE with what was found.
#include <functional>
#include <string>
#include <vector>

#include "models/data/record_stream.hpp"

namespace bvi::data {

// The model's say on the response: "" when the value is allowed, else why not
// ("response must be 0 or 1, got 2"). An empty function allows every finite value.
using ResponseCheck = std::function<std::string(double)>;

// A column read beside the features, always as double whatever the features' type (a count or
// an offset must not lose digits to float32): binomial trials, a poisson offset or exposure.
struct ExtraColumn {
  int column = -1;
  ResponseCheck check;  // judges each value, as a ResponseCheck does the response
};

// The response judged against the row's extra columns (binomial: y <= trials), once the whole
// row is parsed and each value has passed its own check. `extras` holds them in ExtraColumn
// order. "" when fine, else why not; an empty function checks nothing.
using RowCheck = std::function<std::string(double y, const double* extras)>;

class RowParser {
 public:
  // Fields of column feature_columns[k] go to output slot k, those of extras[j] to extra slot j;
  // response_column < 0 means no response. Indexes must be distinct and within `columns`
  // (std::invalid_argument if not: that is a caller's bug, not bad data). The references must
  // outlive the parser.
  RowParser(const std::string& path, const std::vector<std::string>& columns,
            const std::vector<int>& feature_columns, int response_column, const ResponseCheck& check);
  RowParser(const std::string& path, const std::vector<std::string>& columns,
            const std::vector<int>& feature_columns, int response_column, const ResponseCheck& check,
            const std::vector<ExtraColumn>& extras, const RowCheck& row_check);

  // Parses `record` into features[0, D) (D = feature_columns.size()), *response and
  // extras[0, J) (J = the extra columns; may be null when there are none), casting each feature
  // to T after checking it is finite as a double, and again as a T.
  template <class T>
  void parse(const RawRecord& record, T* features, double* response, double* extras = nullptr) const;

 private:
  static constexpr int kSkip = -1;
  static constexpr int kResponse = -2;
  static constexpr int kFirstExtra = -3;  // extra slot j is kFirstExtra - j

  [[noreturn]] void fail(const RawRecord& record, std::size_t offset, const std::string& what) const;
  // A row with the wrong number of fields is reported as ragged even when one of its fields
  // is also bad: the misalignment is the real problem.
  void check_field_count(const RawRecord& record, long fields) const;

  const std::string& path_;
  const std::vector<std::string>& columns_;
  const ResponseCheck& check_;
  const std::vector<ExtraColumn>* extras_ = nullptr;
  const RowCheck* row_check_ = nullptr;
  int response_column_ = -1;
  std::vector<int> slot_;  // per column: output slot, kSkip, kResponse or an extra slot
};

}  // namespace bvi::data
