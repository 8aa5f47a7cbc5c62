#pragma once
// What every fuzz target shares: the rule that bad input may only end in a bvi::Error (the
// one-line message and exit code of SPEC.md), never in another exception, a crash or a hang;
// and the input as a file, for readers that take a path.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace bvi::fuzz {

// Runs `f`. A bvi::Error is an answer (bad input, reported as SPEC.md says); anything else
// thrown would reach main() as "internal error" (exit 70) and is a bug: abort, so libFuzzer
// keeps the input. Returns whether `f` succeeded.
template <class F>
bool only_user_errors(F&& f) {
  try {
    f();
    return true;
  } catch (const Error& e) {
    if (std::string_view(e.what()).empty()) {
      std::fprintf(stderr, "bvi::Error without a message\n");
      std::abort();
    }
    return false;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a bvi::Error: %s\n", e.what());
    std::abort();
  }
}

// Byte-for-byte equality of n elements (memcmp may not be given the null pointer of an empty vector).
template <class T>
bool same_bits(const T* a, const T* b, std::size_t n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(T)) == 0;
}

// The input as a file in memory (memfd), named by a path that open() accepts, for as long as
// this object lives.
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) {
    fd_ = ::memfd_create("bvi-fuzz", MFD_CLOEXEC);
    if (fd_ < 0) std::abort();
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace bvi::fuzz
