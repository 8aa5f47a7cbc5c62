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

std::string hex16(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// The text of (rows, low, high): the same formula for both hashes, told apart by `salt`.
std::uint64_t combine(long rows, long low, long high, std::uint64_t salt) {
  return response_mix64(static_cast<std::uint64_t>(rows) ^
                        response_mix64(static_cast<std::uint64_t>(low) ^
                                       response_mix64(static_cast<std::uint64_t>(high) ^ salt)));
}

// Distinguishes the row hash's text from the response hash's (0 keeps that one as it was).
constexpr std::uint64_t kRowSalt = 0x726f772068617368ULL;  // "row hash"

}  // namespace

void ResponseHash::add(double y, long index) {
  float f = static_cast<float>(y);
  if (f == 0.0f) f = 0.0f;  // -0 and 0 are the same response
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  const std::uint64_t h = response_mix64(bits);
  ++rows;
  low += static_cast<long>(h & 0xffffffffULL);
  high += static_cast<long>(h >> 32);
  // (index, bits) packed into 64 bits is one-to-one for up to 2^32 rows, and the mix spreads it:
  // a response moved to another row changes two terms of the sum.
  const std::uint64_t r = response_mix64((static_cast<std::uint64_t>(index) << 32) | bits);
  row_low += static_cast<long>(r & 0xffffffffULL);
  row_high += static_cast<long>(r >> 32);
}

void ResponseHash::merge(const ResponseHash& other) {
  rows += other.rows;
  low += other.low;
  high += other.high;
  row_low += other.row_low;
  row_high += other.row_high;
}

std::string ResponseHash::text() const { return hex16(combine(rows, low, high, 0)); }

std::string ResponseHash::row_text() const { return hex16(combine(rows, row_low, row_high, kRowSalt)); }

}  // namespace bvi::models
