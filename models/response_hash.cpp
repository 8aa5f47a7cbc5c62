#include "models/response_hash.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace bvi::models {

namespace {

// SplitMix64's finalizer (Steele, Lea and Flood 2014): every input bit moves every output bit.
std::uint64_t response_mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

void ResponseHash::add(double y) {
  float f = static_cast<float>(y);
  if (f == 0.0f) f = 0.0f;  // -0 and 0 are the same response
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  const std::uint64_t h = response_mix64(bits);
  ++rows;
  low += static_cast<long>(h & 0xffffffffULL);
  high += static_cast<long>(h >> 32);
}

std::string ResponseHash::text() const {
  const std::uint64_t h = response_mix64(
      static_cast<std::uint64_t>(rows) ^
      response_mix64(static_cast<std::uint64_t>(low) ^ response_mix64(static_cast<std::uint64_t>(high))));
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace bvi::models
