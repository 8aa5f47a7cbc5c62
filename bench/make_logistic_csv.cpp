// Writes a synthetic logistic-regression CSV: ROWS rows of COLS standard-normal features
// x1..xCOLS and a 0/1 response y ~ Bernoulli(sigmoid(x . beta)), beta_j ~ N(0, 1/COLS) so the
// logits stay of order one. Features are printed as the shortest text of a float (about nine
// characters), which keeps a 10^6 x 100 file near 1 GB. The file appears under its name only when
// complete (written to PATH.tmp, then renamed), so a reader never takes a half-written file.
//
//   make_logistic_csv ROWS COLS PATH [SEED=1]
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: make_logistic_csv ROWS COLS PATH [SEED]\n");
    return 64;
  }
  const long rows = std::atol(argv[1]);
  const int cols = std::atoi(argv[2]);
  const std::string path = argv[3];
  const unsigned long seed = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 1;
  if (rows <= 0 || cols <= 0) {
    std::fprintf(stderr, "make_logistic_csv: ROWS and COLS must be positive\n");
    return 64;
  }
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    std::perror(tmp.c_str());
    return 73;
  }
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<double> unif;
  std::vector<double> beta(static_cast<std::size_t>(cols));
  for (double& b : beta) b = normal(rng) / std::sqrt(double(cols));

  std::string line;
  for (int j = 0; j < cols; ++j) line += "x" + std::to_string(j + 1) + ",";
  line += "y\n";
  std::fwrite(line.data(), 1, line.size(), f);
  char buf[32];
  for (long i = 0; i < rows; ++i) {
    line.clear();
    double z = 0;
    for (int j = 0; j < cols; ++j) {
      const float x = normal(rng);
      z += x * beta[static_cast<std::size_t>(j)];
      const auto r = std::to_chars(buf, buf + sizeof buf, x);
      line.append(buf, r.ptr);
      line += ',';
    }
    line += unif(rng) < 1 / (1 + std::exp(-z)) ? "1\n" : "0\n";
    if (std::fwrite(line.data(), 1, line.size(), f) != line.size()) {
      std::perror(tmp.c_str());
      return 74;
    }
  }
  if (std::fclose(f) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::perror(path.c_str());
    return 74;
  }
  return 0;
}
