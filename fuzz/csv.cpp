// The CSV data reader on arbitrary bytes. The first byte picks the options (float32 or float64,
// standardize, an extra column, a small read buffer, a 0/1 response check); the rest is the file.
// Besides "only bvi::Error", two properties are checked: the rows (or the error) do not depend on
// the read buffer's size, and reading the rows in two ranges gives what one range gives. The same
// bytes also go through the table reader fit uses (labels, missing cells), whose counts and codes
// must agree.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "models/data/csv_reader.hpp"
#include "models/data/dataset.hpp"
#include "models/data/table_reader.hpp"

namespace {

using bvi::data::CsvReader;

template <class T>
struct Rows {
  std::vector<std::string> columns;
  Eigen::Index records = -1;
  std::vector<T> x;
  std::vector<double> y;
  std::string error;  // code, where and what of the bvi::Error, if reading failed
};

// Every column but the last is a feature; the last is the response.
template <class T>
Rows<T> read_all(const std::string& path, std::size_t buffer, const bvi::data::ResponseCheck& check) {
  Rows<T> r;
  try {
    CsvReader reader(path, buffer);
    r.columns = reader.columns();
    const int n_columns = static_cast<int>(r.columns.size());
    std::vector<int> features;
    for (int i = 0; i + 1 < n_columns; ++i) features.push_back(i);
    r.records = reader.scan().records;
    r.x.resize(static_cast<std::size_t>(r.records) * features.size());
    r.y.resize(static_cast<std::size_t>(r.records));
    reader.read_rows<T>(0, r.records, features, n_columns - 1, check, r.x.data(), r.y.data());
    // The same rows read as two ranges, as two ranks would.
    if (r.records > 1) {
      const Eigen::Index half = r.records / 2;
      std::vector<T> x2(r.x.size());
      std::vector<double> y2(r.y.size());
      reader.read_rows<T>(0, half, features, n_columns - 1, check, x2.data(), y2.data());
      reader.read_rows<T>(half, r.records, features, n_columns - 1, check,
                          x2.data() + static_cast<std::size_t>(half) * features.size(), y2.data() + half);
      if (!bvi::fuzz::same_bits(x2.data(), r.x.data(), x2.size()) ||
          !bvi::fuzz::same_bits(y2.data(), r.y.data(), y2.size())) {
        std::fprintf(stderr, "two ranges differ from one\n");
        std::abort();
      }
    }
  } catch (const bvi::Error& e) {
    r.error = std::to_string(static_cast<int>(e.code())) + " " + e.what();
  }
  return r;
}

template <class T>
void same_or_abort(const Rows<T>& a, const Rows<T>& b) {
  const bool same = a.error == b.error && a.columns == b.columns &&
                    (!a.error.empty() || (a.records == b.records && a.x.size() == b.x.size() &&
                                          bvi::fuzz::same_bits(a.x.data(), b.x.data(), a.x.size()) &&
                                          bvi::fuzz::same_bits(a.y.data(), b.y.data(), a.y.size())));
  if (!same) {
    std::fprintf(stderr, "the read depends on the buffer size:\n  [%s]\n  [%s]\n", a.error.c_str(),
                 b.error.c_str());
    std::abort();
  }
}

template <class T>
void read_table(const std::string& path, const bvi::data::ResponseCheck& check) {
  CsvReader reader(path);
  const int n_columns = static_cast<int>(reader.columns().size());
  if (n_columns < 2) return;
  bvi::data::TableSpec spec;
  spec.text = {0};
  spec.tally_text = {true};
  for (int i = 1; i + 1 < n_columns; ++i) {
    spec.numeric.push_back(i);
    spec.tally_numeric.push_back(true);  // kinds from the values: text counted, not an error
  }
  spec.response = n_columns - 1;
  spec.check = check;
  spec.keep_records = true;
  const Eigen::Index records = reader.scan().records;
  const Eigen::Index chunk = std::max<Eigen::Index>(records, 1);
  const bvi::data::Table<T> t = bvi::data::read_table<T>(reader, spec, 0, records, chunk);
  bool ok = t.kept + t.missing == records && t.numeric.rows() == t.kept && t.y.size() == t.kept &&
            t.codes.size() == 1 && static_cast<Eigen::Index>(t.codes[0].size()) == t.kept &&
            static_cast<Eigen::Index>(t.records.size()) == t.kept &&
            t.numeric_tallies.size() == spec.numeric.size() && t.text_tallies.size() == 1;
  // Every cell counted at most once; the samples distinct, at most kSamples, none without a count.
  auto sane = [records](const bvi::data::CellTally& c) {
    bool fine = c.numbers >= 0 && c.others >= 0 && c.numbers + c.others <= records &&
                c.samples.size() <= bvi::data::CellTally::kSamples &&
                static_cast<long>(c.samples.size()) <= c.others;
    for (std::size_t a = 0; fine && a < c.samples.size(); ++a)
      for (std::size_t b = a + 1; b < c.samples.size(); ++b)
        fine = fine && c.samples[a].text != c.samples[b].text;
    return fine;
  };
  for (std::size_t k = 0; ok && k < t.numeric_tallies.size(); ++k) ok = sane(t.numeric_tallies[k]);
  if (ok) ok = sane(t.text_tallies[0]);
  // A column is tallied the same whichever kind it is read as (a first value's guess, text or
  // number): the numeric columns read as labels count the same cells.
  if (ok) {
    bvi::data::TableSpec as_text;
    as_text.text = spec.numeric;
    as_text.tally_text.assign(spec.numeric.size(), true);
    const bvi::data::Table<T> c = bvi::data::read_table<T>(reader, as_text, 0, records, chunk);
    for (std::size_t k = 0; ok && k < spec.numeric.size(); ++k)
      ok = c.text_tallies[k].numbers == t.numeric_tallies[k].numbers &&
           c.text_tallies[k].others == t.numeric_tallies[k].others;
  }
  for (std::size_t i = 0; ok && i < t.codes[0].size(); ++i)
    ok = t.codes[0][i] >= 0 && static_cast<std::size_t>(t.codes[0][i]) < t.levels[0].size();
  for (Eigen::Index i = 0; ok && i < t.numeric.size(); ++i) ok = std::isfinite(static_cast<double>(t.numeric.data()[i]));
  if (!ok) {
    std::fprintf(stderr, "the table's rows, codes and counts disagree\n");
    std::abort();
  }
}

template <class T>
void fuzz(const std::string& path, std::uint8_t options) {
  static const std::size_t kBuffers[] = {1, 2, 3, 7, 16, 64, 256, 4096};
  const std::size_t small = kBuffers[(options >> 4) & 7];
  bvi::data::ResponseCheck zero_one;
  if (options & 0x80)
    zero_one = [](double y) { return y == 0.0 || y == 1.0 ? std::string() : std::string("must be 0 or 1"); };
  bvi::fuzz::only_user_errors([&] {
    const Rows<T> big = read_all<T>(path, bvi::data::RecordStream::kDefaultBufferBytes, zero_one);
    const Rows<T> tiny = read_all<T>(path, small, zero_one);
    same_or_abort(big, tiny);
    if (big.columns.empty()) return;

    // The dataset as load_problem asks for it: the last column as response, the others as
    // features, with an extra column by name when the options ask for one.
    bvi::data::DataSpec spec;
    spec.path = path;
    spec.response = big.columns.back();
    spec.standardize = (options & 2) != 0;
    const int extra = (options >> 2) & 3;
    if (extra && big.columns.size() >= 2) {
      const std::string& name = big.columns[big.columns.size() - 2];
      if (extra == 1) spec.trials = name;
      if (extra == 2) spec.offset = name;
      if (extra == 3) spec.exposure = name;
    }
    const auto d = bvi::data::load_dataset<T>(spec, zero_one, std::nullopt, [](double y, double n) {
      return y <= n ? std::string() : std::string("more successes than trials");
    });
    for (Eigen::Index i = 0; i < d.x.size(); ++i)
      if (!std::isfinite(static_cast<double>(d.x.data()[i]))) {
        std::fprintf(stderr, "a loaded feature is not finite\n");
        std::abort();
      }
  });
  // The table reader fit loads models through (models/model_data.cpp): the first column as
  // labels (a categorical predictor or grouping factor), the ones between as numbers, the last
  // as the response; rows with a missing cell left out and counted.
  bvi::fuzz::only_user_errors([&] { read_table<T>(path, zero_one); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t options = data[0];
  const bvi::fuzz::MemoryFile file(data + 1, size - 1);
  if (options & 1)
    fuzz<float>(file.path(), options);
  else
    fuzz<double>(file.path(), options);
  return 0;
}
