// CSV loading speed: writes a synthetic rows x cols file of random doubles (17 significant
// digits, the worst case for the number parser) to a temporary file, then times scan(), a full
// read_rows() as double and as float, and read_table() as double (the reader fit, check and
// predict load a model's rows with: every column numeric, its kind checked from its values), best
// of several runs. The file is in the page cache after writing, so this measures parsing, not the
// disk.
//
//   csv_throughput [ROWS=100000] [COLS=100] [REPEATS=3] [quoted]
//
// `quoted` quotes every field, as Python's csv.QUOTE_ALL writes.
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "models/data/csv_reader.hpp"
#include "models/data/row_matrix.hpp"
#include "models/data/table_reader.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::string write_csv(long rows, int cols, bool quoted) {
  std::string path = (std::filesystem::temp_directory_path() / "bvi-csv-bench-XXXXXX").string();
  const int fd = ::mkstemp(path.data());
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  ::close(fd);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  std::string line;
  for (int j = 0; j < cols; ++j) line += (j ? ",x" : "x") + std::to_string(j + 1);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), f);
  std::mt19937_64 rng(20240611);
  std::normal_distribution<double> normal;
  char buf[40];
  for (long i = 0; i < rows; ++i) {
    line.clear();
    for (int j = 0; j < cols; ++j) {
      if (j) line += ',';
      const auto r = std::to_chars(buf, buf + sizeof buf, normal(rng), std::chars_format::general, 17);
      if (quoted) line += '"';
      line.append(buf, r.ptr);
      if (quoted) line += '"';
    }
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), f);
  }
  std::fclose(f);
  return path;
}

template <class F>
double best_seconds(int repeats, F&& f) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const long rows = argc > 1 ? std::stol(argv[1]) : 100000;
  const int cols = argc > 2 ? std::stoi(argv[2]) : 100;
  const int repeats = argc > 3 ? std::stoi(argv[3]) : 3;
  const bool quoted = argc > 4 && std::string(argv[4]) == "quoted";

  const std::string path = write_csv(rows, cols, quoted);
  const double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::printf("file: %ld rows x %d columns%s, %.1f MB (%s)\n", rows, cols, quoted ? " (all quoted)" : "", mb,
              path.c_str());

  std::vector<int> all(static_cast<std::size_t>(cols));
  std::iota(all.begin(), all.end(), 0);
  bvi::data::RowMatrix<double> xd(rows, cols);
  bvi::data::RowMatrix<float> xf(rows, cols);
  double checksum = 0.0;

  const double scan_s = best_seconds(repeats, [&] {
    bvi::data::CsvReader reader(path);
    if (reader.scan().records != rows) throw std::runtime_error("wrong row count");
  });
  bvi::data::CsvReader reader(path);
  reader.scan();
  const double read_d = best_seconds(repeats, [&] {
    reader.read_rows<double>(0, rows, all, -1, {}, xd.data(), nullptr);
    checksum += xd(rows - 1, cols - 1);
  });
  const double read_f = best_seconds(repeats, [&] {
    reader.read_rows<float>(0, rows, all, -1, {}, xf.data(), nullptr);
    checksum += xf(rows - 1, cols - 1);
  });
  bvi::data::TableSpec table_spec;
  table_spec.numeric = all;
  // As the model's load reads columns whose kind is not declared: each cell counted as a number
  // or not (CellTally), so that the kind comes from all of a column's values.
  table_spec.tally_numeric.assign(all.size(), true);
  const double read_t = best_seconds(repeats, [&] {
    const bvi::data::Table<double> t = bvi::data::read_table<double>(reader, table_spec, 0, rows, rows);
    checksum += t.numeric(rows - 1, cols - 1);
  });
  std::filesystem::remove(path);

  std::printf("scan:             %7.3f s  %8.1f MB/s\n", scan_s, mb / scan_s);
  std::printf("read_rows double: %7.3f s  %8.1f MB/s\n", read_d, mb / read_d);
  std::printf("read_rows float:  %7.3f s  %8.1f MB/s\n", read_f, mb / read_f);
  std::printf("read_table double: %7.3f s  %8.1f MB/s (the model's reader)\n", read_t, mb / read_t);
  std::printf("scan + read:      %7.3f s  %8.1f MB/s (one core)\n", scan_s + read_d, mb / (scan_s + read_d));
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS: %.1f MB (features: %.1f MB double + %.1f MB float)  [checksum %g]\n",
              static_cast<double>(usage.ru_maxrss) / 1024.0, static_cast<double>(rows) * cols * 8 / 1e6,
              static_cast<double>(rows) * cols * 4 / 1e6, checksum);
  return 0;
}
