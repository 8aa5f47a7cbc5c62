#pragma once
// What the present cells of a column hold: how many read as numbers and how many do not, with the
// first few that do not (their text and line), so that a column's kind can be decided from all
// of its values rather than its first (models/design/column_kinds.hpp), and an error can show
// the user the cells to fix. Counted per rank over its records, then summed over the ranks.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "inference/reduce/communicator.hpp"

namespace bvi::data {

struct CellSample {
  long line = 0;     // physical line of its first occurrence
  std::string text;  // its text, cut to kSampleBytes
};

struct CellTally {
  // Samples shown in an error; their text is cut (quoted_excerpt shows 40 bytes, then "...").
  static constexpr std::size_t kSamples = 3;
  static constexpr std::size_t kSampleBytes = 48;

  long numbers = 0;                 // present cells that read as numbers (also infinite or too large ones)
  long others = 0;                  // present cells that do not
  std::vector<CellSample> samples;  // the first kSamples distinct texts of `others`, in file order

  // Counts a cell that is no number; `line` is only called while a sample may still be taken.
  template <class LineOf>
  void add_other(std::string_view text, LineOf&& line) {
    ++others;
    if (samples.size() >= kSamples) return;
    text = text.substr(0, kSampleBytes);
    for (const CellSample& s : samples)
      if (s.text == text) return;
    samples.push_back({line(), std::string(text)});
  }
};

// The tallies of the whole file, the same on every rank: the counts summed over the ranks, the
// samples merged in rank order (rank r holds earlier records than rank r + 1), so the first
// kSamples distinct texts are those one process reading the whole file finds. Collective; the
// samples are exchanged only when some column has a cell that is no number.
std::vector<CellTally> gather_tallies(const std::vector<CellTally>& local, reduce::Communicator& comm);

}  // namespace bvi::data
