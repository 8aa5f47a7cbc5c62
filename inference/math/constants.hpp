#pragma once
// Constants the densities share, to 20 significant digits.
namespace bvi::math {

inline constexpr double kLog2 = 0.69314718055994530942;         // log 2
inline constexpr double kHalfLog2Pi = 0.91893853320467274178;   // log(2π)/2 = log √(2π)

}  // namespace bvi::math
