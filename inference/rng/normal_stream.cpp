#include "inference/rng/normal_stream.hpp"

#include <Random123/philox.h>

#include <cmath>

// GCC 12 reports Eigen's vectorized log as reading an uninitialized register (the
// _mm512_undefined_* placeholders of its AVX-512 intrinsics; GCC bug 105593, the same false
// warning CMakeLists.txt silences as -Wmaybe-uninitialized).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include "inference/rng/open_unit.hpp"

namespace bvi::rng {

namespace {

// Box-Muller pairs are transformed a batch at a time, in stack buffers, with vectorized loops:
// one libm log and one sincos per pair cost more than the gradient step of a small model. The
// batch is padded to whole packets (kBatch is a multiple of every packet size) and every element
// takes the same vector path, so a value does not depend on where it falls in a batch.
constexpr int kBatch = 256;

// cos(2 pi u) and sin(2 pi u) for u in (0, 1): v = 4u, k = round(v), r = (v - k) pi/2 in
// [-pi/4, pi/4] (v - k is exact), Cephes' sin/cos polynomials on r (error ~1e-16), then the
// quadrant k mod 4 swaps and negates them. A plain loop the compiler vectorizes.
void cos_sin_2pi(const double* u, double* c, double* s, int n) {
  constexpr double kPiOver2 = 1.57079632679489661923;
  for (int i = 0; i < n; ++i) {
    const double v = 4.0 * u[i];
    const double k = std::nearbyint(v);
    const double r = (v - k) * kPiOver2, z = r * r;
    const double sin_r =
        r + r * z *
                ((((((1.58962301576546568060E-10 * z - 2.50507477628578072866E-8) * z + 2.75573136213857245213E-6) *
                       z -
                   1.98412698295895385996E-4) *
                      z +
                  8.33333333332211858878E-3) *
                     z -
                 1.66666666666666307295E-1));
    const double cos_r =
        1.0 - 0.5 * z +
        z * z *
            (((((-1.13585365213876817300E-11 * z + 2.08757008419747316778E-9) * z - 2.75573141792967388112E-7) * z +
               2.48015872888517045348E-5) *
                  z -
              1.38888888888730564116E-3) *
                 z +
             4.16666666666665929218E-2);
    // k in {0, ..., 4}: cos(k pi/2 + r) = cos r, -sin r, -cos r, sin r, cos r; sin likewise.
    const bool odd = k == 1.0 || k == 3.0;
    const double a = odd ? sin_r : cos_r, b = odd ? cos_r : sin_r;
    c[i] = (k == 1.0 || k == 2.0) ? -a : a;
    s[i] = (k == 2.0 || k == 3.0) ? -b : b;
  }
}

struct Batch {
  alignas(64) double u1[kBatch];  // radius uniforms, then the radii
  alignas(64) double u2[kBatch];  // angle uniforms
  alignas(64) double c[kBatch];
  alignas(64) double s[kBatch];
  Eigen::Index row[kBatch], col[kBatch];  // where the pair's first value goes (second: col + 1)
  int n = 0;
};

void flush(Batch& b, Eigen::Ref<Eigen::MatrixXd>& out) {
  if (b.n == 0) return;
  for (int i = b.n; i < kBatch; ++i) b.u1[i] = b.u2[i] = 0.5;  // padding, computed and dropped
  // Box-Muller: sqrt(-2 log u1) (cos 2 pi u2, sin 2 pi u2)
  // Dynamic size (a fixed 256 trips GCC 12's false -Wuninitialized in its AVX-512 headers); aligned
  // and a multiple of the packet size, so Eigen leaves no scalar head or tail.
  Eigen::Map<Eigen::ArrayXd, Eigen::Aligned64> log_u1(b.u1, kBatch);
  log_u1 = log_u1.log();
  for (int i = 0; i < kBatch; ++i) b.u1[i] = std::sqrt(-2.0 * b.u1[i]);
  cos_sin_2pi(b.u2, b.c, b.s, kBatch);
  const Eigen::Index P = out.cols();
  for (int i = 0; i < b.n; ++i) {
    out(b.row[i], b.col[i]) = b.u1[i] * b.c[i];
    if (b.col[i] + 1 < P) out(b.row[i], b.col[i] + 1) = b.u1[i] * b.s[i];
  }
  b.n = 0;
}

}  // namespace

void standard_normal(std::uint64_t seed, Purpose purpose, std::uint64_t step, std::uint64_t attempt,
                     std::uint64_t first_draw, Eigen::Ref<Eigen::MatrixXd> out) {
  using Philox = r123::Philox4x64;
  const Philox gen;
  const Philox::key_type key = {{seed, static_cast<std::uint64_t>(purpose)}};
  const Eigen::Index S = out.rows(), P = out.cols();
  Batch batch;
  // One Philox block gives four 64-bit words = two Box-Muller pairs = four normals, for four
  // consecutive coordinates of one draw.
  for (Eigen::Index s = 0; s < S; ++s) {
    const std::uint64_t draw = first_draw + static_cast<std::uint64_t>(s);
    for (Eigen::Index j0 = 0; j0 < P; j0 += 4) {
      const Philox::ctr_type ctr = {{draw, static_cast<std::uint64_t>(j0 / 4), step, attempt}};
      const Philox::ctr_type r = gen(ctr, key);
      for (int pair = 0; pair < 2 && j0 + 2 * pair < P; ++pair) {
        const int i = batch.n++;
        batch.u1[i] = open_unit(r.v[2 * pair]);
        batch.u2[i] = open_unit(r.v[2 * pair + 1]);
        batch.row[i] = s;
        batch.col[i] = j0 + 2 * pair;
      }
      if (batch.n > kBatch - 2) flush(batch, out);
    }
  }
  flush(batch, out);
}

void standard_normal(std::uint64_t seed, Purpose purpose, std::uint64_t step, std::uint64_t attempt,
                     Eigen::Ref<Eigen::MatrixXd> out) {
  standard_normal(seed, purpose, step, attempt, 0, out);
}

}  // namespace bvi::rng
