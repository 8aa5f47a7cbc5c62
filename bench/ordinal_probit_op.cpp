// The fused ordinal probit op alone (the speed target; README, "ordinal_probit_packet"):
// elements (draw x row) per second of ad::ordinal_glm(..., probit) forward and backward, on data
// shaped like a default fit of bench/ordinal_time.py: K = 5 categories, cutpoints near
// -1.5, -0.5, 0.5, 1.5 with draw-to-draw noise, S = 128 draws, eta ~ N(0, 1.3) per element.
//   ordinal_probit_op [rows=20000] [draws=128] [passes=20]
// prints the median of `passes` timed passes, wall and CPU (one thread; the op runs in double).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "inference/ad/ad.hpp"

int main(int argc, char** argv) {
  using namespace bvi;
  const Eigen::Index m = argc > 1 ? std::atol(argv[1]) : 20000, S = argc > 2 ? std::atol(argv[2]) : 128;
  const int passes = std::max(1, argc > 3 ? std::atoi(argv[3]) : 20);
  const Eigen::Index D = 1, J = 4;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<double> x(static_cast<std::size_t>(m * D)), y(static_cast<std::size_t>(m));
  for (auto& v : x) v = z(rng);
  Eigen::ArrayXXd beta(S, D), cut(S, J);
  for (Eigen::Index s = 0; s < S; ++s) {
    beta(s, 0) = 1.3 + 0.02 * z(rng);
    for (Eigen::Index j = 0; j < J; ++j) cut(s, j) = -1.5 + static_cast<double>(j) + 0.02 * z(rng);
  }
  for (Eigen::Index n = 0; n < m; ++n) {  // y from the model at the mean parameters
    const double latent = 1.3 * x[static_cast<std::size_t>(n)] + z(rng);
    int k = 1;
    while (k <= J && latent > -1.5 + static_cast<double>(k - 1)) ++k;
    y[static_cast<std::size_t>(n)] = k;
  }
  ad::GlmRows rows;
  rows.y = y.data();
  rows.rows = m;
  Eigen::ArrayXXd gbeta(S, D), gcut(S, J);
  std::vector<double> secs, cpu;
  double checksum = 0.0;
  ad::Tape tape(std::size_t(1) << 24);  // rewound between passes: its memory is kept, as in a fit
  for (int p = 0; p < passes + 1; ++p) {
    tape.rewind();
    gbeta.setZero();
    gcut.setZero();
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    ad::Var b = tape.leaf(beta.data(), gbeta.data(), S, D), c = tape.leaf(cut.data(), gcut.data(), S, J);
    ad::Var out = ad::ordinal_glm<double>(nullptr, b, c, x.data(), rows, ad::OrdinalLink::probit);
    Eigen::ArrayXd seed = Eigen::ArrayXd::Ones(S);
    tape.backward(out, seed.data());
    const auto t1 = std::chrono::steady_clock::now();
    const std::clock_t c1 = std::clock();
    if (p > 0) {  // the first warms up
      secs.push_back(std::chrono::duration<double>(t1 - t0).count());
      cpu.push_back(static_cast<double>(c1 - c0) / CLOCKS_PER_SEC);
    }
    checksum = out.val().sum() + gcut.sum() + gbeta.sum();
  }
  std::sort(secs.begin(), secs.end());
  std::sort(cpu.begin(), cpu.end());
  const double med = secs[secs.size() / 2], med_cpu = cpu[cpu.size() / 2];
  // CPU time too: on a shared machine the wall time of a pass can be several times its CPU time.
  std::printf(
      "rows %ld draws %ld: median %.4f s per pass (min %.4f; CPU %.4f s), %.1f M elements/s (%.1f per CPU-s); "
      "checksum %.17g\n",
      static_cast<long>(m), static_cast<long>(S), med, secs.front(), med_cpu, static_cast<double>(m * S) / med / 1e6,
      static_cast<double>(m * S) / med_cpu / 1e6, checksum);
  return 0;
}
