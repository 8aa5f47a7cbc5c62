// What the unit tests' second run, under AddressSanitizer + UBSan (the sanitizer tree defines
// BVI_SANITIZED), does differently. That run looks for memory errors and undefined behaviour in the
// code under test; the first run (Release) keeps every test's full statistical power. The code
// under test runs the same paths in both: only the test's own work is cut where it made up most
// of the sanitized run's time.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <limits>

namespace bvi::test {

#ifdef BVI_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// How many entries of an input a gradient is checked at by central differences: all of them in
// Release, at most 12 under the sanitizers, spread over the input from its first to its last. The
// gradient itself is computed in full either way; the differences only re-evaluate the value.
inline constexpr Eigen::Index kFdEntries = kSanitized ? 12 : std::numeric_limits<Eigen::Index>::max();

// Whether entry i of n is one of those checked.
inline bool fd_entry(Eigen::Index i, Eigen::Index n) {
  const Eigen::Index stride = std::max<Eigen::Index>(1, n / kFdEntries + (n % kFdEntries != 0));
  return i % stride == 0 || i == n - 1;
}

// A Monte Carlo comparison's sample size: a tenth under the sanitizers. Those comparisons allow
// a multiple of their own standard error, so they stay calibrated, at about three times the width.
inline constexpr Eigen::Index monte_carlo_draws(Eigen::Index release) {
  return kSanitized ? release / 10 : release;
}

}  // namespace bvi::test
