#include "models/data/cell_tally.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "models/data/wire_u64.hpp"

namespace bvi::data {

std::vector<CellTally> gather_tallies(const std::vector<CellTally>& local, reduce::Communicator& comm) {
  std::vector<CellTally> out(local.size());
  std::vector<long> counts;
  counts.reserve(2 * local.size());
  for (const CellTally& t : local) {
    counts.push_back(t.numbers);
    counts.push_back(t.others);
  }
  if (!counts.empty()) comm.allreduce_sum(counts.data(), static_cast<int>(counts.size()));
  bool any_other = false;
  for (std::size_t c = 0; c < local.size(); ++c) {
    out[c].numbers = counts[2 * c];
    out[c].others = counts[2 * c + 1];
    any_other = any_other || out[c].others > 0;
  }
  if (!any_other) return out;  // a clean file: one reduction of counts, no message

  std::string mine;
  for (const CellTally& t : local) {
    put_u64(mine, t.samples.size());
    for (const CellSample& s : t.samples) {
      put_u64(mine, static_cast<std::uint64_t>(s.line));
      put_u64(mine, s.text.size());
      mine += s.text;
    }
  }
  for (const std::string& msg : reduce::all_strings(mine, comm)) {
    std::size_t at = 0;
    for (CellTally& t : out) {
      const std::uint64_t n = get_u64(msg, at, "gather_tallies");
      for (std::uint64_t i = 0; i < n; ++i) {
        const long line = static_cast<long>(get_u64(msg, at, "gather_tallies"));
        const std::uint64_t len = get_u64(msg, at, "gather_tallies");
        if (at + len > msg.size()) throw std::runtime_error("gather_tallies: truncated message");
        const std::string text(msg, at, len);
        at += len;
        // add_other's rule on the merged stream; the count is the reduced one, kept aside.
        const long others = t.others;
        t.add_other(text, [line] { return line; });
        t.others = others;
      }
    }
  }
  return out;
}

}  // namespace bvi::data
