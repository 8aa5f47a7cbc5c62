#pragma once
// The reverse-mode tape. Each op computes its value on plain doubles and records one backward
// closure over what it needs (Stan's reverse_pass_callback); never one node per scalar. Values,
// adjoints and closures all live in an Arena that rewind() recycles between evaluations.
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

#include "inference/ad/arena.hpp"
#include "inference/ad/var.hpp"

namespace bvi::ad {

class Tape {
 public:
  explicit Tape(std::size_t arena_block_bytes = std::size_t(1) << 20) : arena_(arena_block_bytes) {}
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;

  // Data that outlives the evaluation, used without a copy and never differentiated.
  Var constant(const double* data, Index rows, Index cols) {
    return Var(this, data, nullptr, rows, cols, false);
  }
  template <class Derived>
  Var constant(const Eigen::DenseBase<Derived>& x) {  // copied into the arena
    double* v = arena_.allocate_array<double>(static_cast<std::size_t>(x.size()));
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>>(v, x.rows(), x.cols()) =
        x.derived().template cast<double>();
    return Var(this, v, nullptr, x.rows(), x.cols(), false);
  }
  Var constant(double x) {
    double* v = arena_.allocate_array<double>(1);
    *v = x;
    return Var(this, v, nullptr, 1, 1, false);
  }

  // An independent variable whose value and adjoint live in caller memory. The adjoint is not
  // cleared: backward() adds into it, so successive evaluations can accumulate into one buffer.
  Var leaf(const double* val, double* adj, Index rows, Index cols) {
    return Var(this, val, adj, rows, cols, true);
  }

  // An op's output: uninitialized values, and zeroed adjoints when `needs_adj`.
  Var make(Index rows, Index cols, bool needs_adj) {
    const auto n = static_cast<std::size_t>(rows * cols);
    double* v = arena_.allocate_array<double>(n);
    double* a = nullptr;
    if (needs_adj) {
      a = arena_.allocate_array<double>(n);
      if (n) std::memset(a, 0, n * sizeof(double));
    }
    return Var(this, v, a, rows, cols, needs_adj);
  }
  double* val_ptr(const Var& v) const { return const_cast<double*>(v.val_data()); }

  // Scratch memory for an op's saved intermediates, valid until rewind().
  double* scratch(Index n) { return arena_.allocate_array<double>(static_cast<std::size_t>(n)); }

  // Records `f()` to run during backward(). The closure is copied into the arena, so it must be
  // trivially destructible (capture Vars, pointers and sizes, not owning containers).
  template <class F>
  void on_backward(F&& f) {
    using Fn = std::decay_t<F>;
    static_assert(std::is_trivially_destructible_v<Fn>,
                  "backward closures live in the arena and are never destroyed");
    void* mem = arena_.allocate(sizeof(Fn));
    Fn* stored = new (mem) Fn(std::forward<F>(f));
    callbacks_.push_back({[](void* p) { (*static_cast<Fn*>(p))(); }, stored});
  }

  // Seeds d(sum of out)/d(out) = 1 and runs the closures in reverse order. For an S x 1 output
  // of per-draw log densities this gives every draw's gradient in one pass, since draw s only
  // depends on row s of the inputs.
  void backward(const Var& out) {
    if (out.has_adj()) out.adj().setConstant(1.0);
    run_callbacks();
  }
  // Seeds d(loss)/d(out) = seed (out-shaped, column-major) instead.
  void backward(const Var& out, const double* seed) {
    // memcpy rather than an Eigen assignment: GCC 12 with AVX-512 warns (-Warray-bounds, a false
    // positive) wherever a caller's seed is a small array, since it cannot see that the 8-wide
    // packet loop is skipped at run time. An empty output may come with a null seed, which
    // memcpy must not be given even for 0 bytes.
    if (out.has_adj() && out.size() > 0)
      std::memcpy(out.adj_data(), seed, sizeof(double) * static_cast<std::size_t>(out.size()));
    run_callbacks();
  }

  // Forget every node and closure; keep the memory.
  void rewind() {
    callbacks_.clear();  // keeps its capacity
    arena_.rewind();
  }

  Arena& arena() { return arena_; }
  std::size_t callback_count() const { return callbacks_.size(); }

 private:
  void run_callbacks() {
    for (auto it = callbacks_.rbegin(); it != callbacks_.rend(); ++it) it->run(it->context);
  }

  struct Callback {
    void (*run)(void*);
    void* context;
  };
  Arena arena_;
  std::vector<Callback> callbacks_;
};

// True when any of the inputs carries an adjoint, i.e. the output needs one too.
inline bool any_adj(const Var& a) {
  return a.has_adj();
}
template <class... Rest>
bool any_adj(const Var& a, const Rest&... rest) {
  return a.has_adj() || any_adj(rest...);
}

}  // namespace bvi::ad
