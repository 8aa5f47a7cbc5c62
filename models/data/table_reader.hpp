#pragma once
// The rows a model uses, read from a CSV file: numeric columns as numbers of type T, categorical
// columns as labels (numbered per process, LevelDictionary), the response and the columns some
// likelihoods read besides as doubles, each checked; rows with a missing cell (missing_cell.hpp)
// in any of these columns are left out and counted, so the caller can drop them or report them.
// Columns the model does not use are split but never parsed.
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "models/data/csv_reader.hpp"
#include "models/data/level_dictionary.hpp"
#include "models/data/row_matrix.hpp"
#include "models/data/row_parser.hpp"

namespace bvi::data {

struct TableSpec {
  std::vector<int> numeric;  // header indexes of the numeric columns
  std::vector<int> text;     // header indexes of the categorical columns
  int response = -1;         // -1: none
  ResponseCheck check;       // judges each response value
  std::vector<ExtraColumn> extras;
  RowCheck row_check;         // the response against its row's extras
  bool keep_records = false;  // fill Table::records and Table::lines
};

template <class T>
struct Table {
  RowMatrix<T> numeric;                          // kept rows x numeric columns
  Eigen::VectorXd y;                             // kept rows (empty without a response)
  RowMatrix<double> extras;                      // kept rows x extras
  std::vector<std::vector<std::int32_t>> codes;  // per categorical column: a local code per kept row
  std::vector<LevelDictionary> levels;           // per categorical column: the labels of the codes
  // Rows kept per chunk of `chunk_records` file records, for the chunks [begin, end) covers.
  std::vector<Eigen::Index> kept_per_chunk;
  std::vector<Eigen::Index> records;   // with keep_records: each kept row's record index (0-based)
  std::vector<long> lines;             // with keep_records: each kept row's physical line
  Eigen::Index kept = 0, missing = 0;  // rows kept, rows left out for a missing cell
  long first_missing_line = 0;         // the first of those (physical line), 0 when none
  std::string first_missing_what;      // "column 'x': empty field"
};

// Reads records [begin, end) of `reader` (scanned). `begin` must start a chunk of
// `chunk_records` records. A value that is present but bad (not a number, infinite, a response
// the check refuses, a ragged row) is a data error at FILE:LINE, as in RowParser.
template <class T>
Table<T> read_table(const CsvReader& reader, const TableSpec& spec, Eigen::Index begin, Eigen::Index end,
                    Eigen::Index chunk_records);

}  // namespace bvi::data
