#include "cli/kfold_run_record.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/errno_text.hpp"
#include "common/error.hpp"

namespace bvi::cli {

namespace {

// xxHash64's primes and its round and avalanche on one lane: 8 bytes per multiply, so hashing
// runs at the disk's speed rather than FNV's byte at a time. Not xxHash64's values (one lane, not
// four): the hash is only ever compared with one this code wrote.
constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ULL;

std::uint64_t kfold_rotl(std::uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

std::uint64_t kfold_round(std::uint64_t acc, std::uint64_t word) {
  return kfold_rotl(acc + word * kPrime2, 31) * kPrime1;
}

// Reads until `buf` is full or the file ends: the words hashed then do not depend on how the
// reads happen to be cut.
std::size_t kfold_fill(int fd, char* buf, std::size_t size, const std::string& path) {
  std::size_t got = 0;
  while (got < size) {
    const ssize_t n = ::read(fd, buf + got, size - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = errno_text();
      ::close(fd);
      throw input_error(path, "cannot read (" + why + ")");
    }
    got += static_cast<std::size_t>(n);
  }
  return got;
}

}  // namespace

FileHash hash_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw input_error(path, "cannot open (" + errno_text() + ")");
  std::vector<char> buf(std::size_t{1} << 20);  // a multiple of 8: only the last block has a tail
  std::uint64_t h = kPrime3, bytes = 0;
  for (;;) {
    const std::size_t n = kfold_fill(fd, buf.data(), buf.size(), path);
    bytes += n;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, buf.data() + i, 8);
      h = kfold_round(h, w);
    }
    if (i < n) {  // the tail, zero-padded (the length, mixed in below, tells "a" from "a\0")
      std::uint64_t w = 0;
      std::memcpy(&w, buf.data() + i, n - i);
      h = kfold_round(h, w);
    }
    if (n < buf.size()) break;
  }
  ::close(fd);
  h = kfold_round(h, bytes);
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  char text[20];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return {bytes, text};
}

spec::Json kfold_run_record(const spec::Config& config) {
  spec::Json c = config.resolved;
  // The path as written is no part of what the fits saw (the bytes below are).
  if (c.contains("data") && c["data"].is_object()) c["data"].erase("csv");
  const FileHash data = hash_file(config.data.csv);
  return spec::Json{{"config", c}, {"data", {{"bytes", data.bytes}, {"hash", data.hash}}}};
}

std::string kfold_run_difference(const spec::Json& before, const spec::Json& now) {
  if (!before.is_object() || !before.contains("config") || !before.contains("data"))
    return "its run.json is not one kfold writes";
  std::vector<std::string> places;
  constexpr std::size_t kShown = 3;
  bool more = false;
  for (const spec::Json& op : spec::Json::diff(before["config"], now.at("config"))) {
    const std::string place = op.value("path", std::string());
    if (places.size() == kShown) {
      more = true;
      break;
    }
    places.push_back(place.empty() ? "the config" : place);
  }
  if (more) places.back() += ", ...";
  if (before["data"] != now.at("data")) places.push_back("the data file");
  if (places.empty()) return "";
  std::string text;
  for (std::size_t i = 0; i < places.size(); ++i)
    text += (i == 0 ? "" : i + 1 == places.size() ? " and " : ", ") + places[i];
  return text + (places.size() == 1 ? " differs" : " differ");
}

}  // namespace bvi::cli
