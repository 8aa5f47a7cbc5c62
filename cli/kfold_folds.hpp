#pragma once
// The folds of `bayes-vi kfold`: the data file's records split into K folds, at random but
// reproducibly (a pure function of the seed and the records), by row or, with a group column,
// whole levels at a time (leave-group-out, as brms's kfold(group =) and loo's
// kfold_split_grouped), and the training and held-out files of a fold written from the records'
// own text (RFC 4180 records, so quoting and the columns the model ignores survive as they are).
#include <cstdint>
#include <string>
#include <vector>

namespace bvi::cli {

struct KfoldData {
  std::string header;                // the header record's text
  std::vector<std::string> records;  // the data records' text, in file order
  std::vector<std::string> group;    // each record's value of the group column (empty without one)
  std::vector<std::string> levels;   // the group column's levels in order of first appearance
};

// Reads `path` (errors: 66 when it cannot be opened, 65 for malformed quoting, no records, or
// `group_column` not in the header).
KfoldData read_kfold_data(const std::string& path, const std::string& group_column);

// Each record's fold, 0 ... folds - 1. By row: the records ordered by a Philox uniform keyed by
// (seed, record) and dealt out in turn, so fold sizes differ by at most one. By group: the levels
// dealt out the same way (keyed by their order of first appearance), every record of a level in
// its level's fold.
std::vector<int> kfold_assign(const KfoldData& data, int folds, std::uint64_t seed);

// The header and the records whose fold is (`held_out` ? ==) or (!=) `fold`.
std::string kfold_file_text(const KfoldData& data, const std::vector<int>& fold_of, int fold, bool held_out);

}  // namespace bvi::cli
