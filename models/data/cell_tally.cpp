#include "models/data/cell_tally.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace bvi::data {

namespace {

void put_u64(std::string& out, std::uint64_t v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

std::uint64_t get_u64(const std::string& in, std::size_t& at) {
  if (at + sizeof(std::uint64_t) > in.size()) throw std::runtime_error("gather_tallies: truncated message");
  std::uint64_t v;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

}  // namespace

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
      const std::uint64_t n = get_u64(msg, at);
      for (std::uint64_t i = 0; i < n; ++i) {
        const long line = static_cast<long>(get_u64(msg, at));
        const std::uint64_t len = get_u64(msg, at);
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
