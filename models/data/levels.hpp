#pragma once
// The levels of categorical columns over the whole file, the same on every MPI rank: each rank
// numbers the labels of its own rows (LevelDictionary), the label sets are exchanged (every rank
// broadcasts its serialized sets in turn) and merged, and every rank sorts the union the same way:
//   - by value when every label of the column is a number ("7", "10", "2.5"; "01" and "1" are the
//     same level, named by the shortest text that reads back as the number, "1");
//   - else byte by byte (C locale: "B" < "a" < "b", UTF-8 by code point).
// So the levels, their order and every row's global level index depend on the file alone, never
// on the number of ranks or how the rows were cut.
#include <cstdint>
#include <string>
#include <vector>

#include "inference/reduce/communicator.hpp"
#include "models/data/level_dictionary.hpp"

namespace bvi::data {

struct ColumnLevels {
  std::vector<std::string> names;   // sorted, as above
  bool numeric = false;             // sorted by value
  std::vector<std::int32_t> remap;  // this rank's local code -> index in `names`
};

// One entry per dictionary (per categorical column), collectively over `comm`.
std::vector<ColumnLevels> gather_levels(const std::vector<LevelDictionary>& local,
                                        reduce::Communicator& comm);

// Moves `level` to the front of `levels` (R's relevel: the reference level of treatment contrasts),
// the others keeping their order, and remaps the codes to match. A numeric column's level matches
// by value ("2" and "2.0"). Throws a config error at `where` when the column has no such level.
void move_first(ColumnLevels& levels, const std::string& level, const std::string& column,
                const std::string& where);

// The observed combinations of several categorical columns (a combined grouping factor such as
// school:class), each row's tuple of global level indexes given in `rows` (row-major, `width`
// per row). Returns the sorted distinct tuples of all ranks (lexicographic in level order) as
// their names ("A:x", parts joined by ':'), and sets `index` to each row's position among them.
std::vector<std::string> gather_combinations(const std::vector<std::int32_t>& rows, std::size_t width,
                                             const std::vector<const ColumnLevels*>& parts,
                                             reduce::Communicator& comm, std::vector<std::int32_t>& index);

}  // namespace bvi::data
