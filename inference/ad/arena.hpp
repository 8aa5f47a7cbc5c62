#pragma once
// Bump allocator for tape memory. `rewind()` makes every block reusable without returning it
// to the system, so after the first evaluation a gradient pass allocates nothing: on these
// machines a page fault costs more than the arithmetic it feeds.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace bvi::ad {

class Arena {
 public:
  static constexpr std::size_t kAlign = 64;  // one cache line; also AVX-512 alignment

  explicit Arena(std::size_t block_bytes = std::size_t(1) << 20) : block_bytes_(block_bytes) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  Arena(Arena&&) = default;
  Arena& operator=(Arena&&) = default;

  // `bytes` of uninitialized memory aligned to kAlign, valid until the next rewind().
  void* allocate(std::size_t bytes) {
    bytes = round_up(bytes == 0 ? 1 : bytes);
    if (current_ < blocks_.size() && offset_ + bytes <= blocks_[current_].size) {
      void* p = blocks_[current_].data.get() + offset_;
      offset_ += bytes;
      return p;
    }
    return allocate_slow(bytes);
  }

  template <class T>
  T* allocate_array(std::size_t n) {
    return static_cast<T*>(allocate(n * sizeof(T)));
  }

  // Forget every allocation but keep the blocks for reuse.
  void rewind() {
    current_ = 0;
    offset_ = 0;
  }

  std::size_t bytes_reserved() const {
    std::size_t total = 0;
    for (const auto& b : blocks_) total += b.size;
    return total;
  }
  std::size_t block_count() const { return blocks_.size(); }

 private:
  struct AlignedDelete {
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t(kAlign)); }
  };
  struct Block {
    std::unique_ptr<std::byte[], AlignedDelete> data;
    std::size_t size = 0;
  };

  static std::size_t round_up(std::size_t n) { return (n + kAlign - 1) & ~(kAlign - 1); }

  void* allocate_slow(std::size_t bytes) {
    // Move on to the next block that is big enough; grow only when none is.
    std::size_t next = blocks_.empty() ? 0 : current_ + 1;
    if (current_ < blocks_.size() && offset_ == 0) next = current_;  // fresh block too small
    while (next < blocks_.size() && blocks_[next].size < bytes) ++next;
    if (next >= blocks_.size()) {
      Block b;
      b.size = bytes > block_bytes_ ? bytes : block_bytes_;
      b.data.reset(static_cast<std::byte*>(::operator new[](b.size, std::align_val_t(kAlign))));
      blocks_.push_back(std::move(b));
      next = blocks_.size() - 1;
    }
    current_ = next;
    offset_ = bytes;
    return blocks_[current_].data.get();
  }

  std::size_t block_bytes_;
  std::vector<Block> blocks_;
  std::size_t current_ = 0;
  std::size_t offset_ = 0;
};

}  // namespace bvi::ad
