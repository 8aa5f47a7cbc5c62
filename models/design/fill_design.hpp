#pragma once
// The values of design columns for rows read from a file: each column is a product of numeric
// values and level indicators (design.hpp), evaluated in double and rounded once to T.
#include <cstdint>
#include <vector>

#include "models/data/row_matrix.hpp"
#include "models/design/design.hpp"

namespace bvi::models::design {

// Where each variable's values are: a column of `numeric` (numeric variables) or a vector of
// global level indexes (categorical ones), one entry per row.
template <class T>
struct RowSource {
  const data::RowMatrix<T>* numeric = nullptr;
  std::vector<int> numeric_column;                       // per variable: its column, or -1
  std::vector<const std::vector<std::int32_t>*> levels;  // per variable: its levels per row, or null
};

// out (rows x columns.size()) = the columns' values.
template <class T>
void fill_columns(const std::vector<Column>& columns, const RowSource<T>& source, Eigen::Index rows,
                  data::RowMatrix<T>& out);

}  // namespace bvi::models::design
