#pragma once
// 64-bit integers in the byte messages ranks exchange (levels, cell tallies): appended in the
// machine's byte order (every rank of a job runs on the same kind of machine) and read back with a
// bounds check naming the message.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace bvi::data {

inline void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

// The next integer of `in` at `at` (advanced past it); `message` names the message when it is short.
inline std::uint64_t get_u64(const std::string& in, std::size_t& at, const char* message) {
  if (at + sizeof(std::uint64_t) > in.size()) throw std::runtime_error(std::string(message) + ": truncated message");
  std::uint64_t v;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

}  // namespace bvi::data
