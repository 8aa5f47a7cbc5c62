#include "inference/ad/ops/add.hpp"

#include "inference/ad/broadcast.hpp"
#include "inference/ad/tape.hpp"

namespace bvi::ad {

namespace {
template <int Sign>
Var add_signed(const Var& a, const Var& b, const char* name) {
  const Shape s = broadcast_shape(a, b, name);
  Tape& tape = a.tape();
  Var c = tape.make(s.rows, s.cols, any_adj(a, b));
  broadcast_apply(a, b, tape.val_ptr(c), s, [](double x, double y) { return x + Sign * y; });
  if (c.has_adj()) {
    tape.on_backward([a, b, c, s] {
      const double* g = c.adj_data();
      if (a.has_adj()) accumulate_broadcast(a, s, [g, s](Index i, Index j) { return g[j * s.rows + i]; });
      if (b.has_adj())
        accumulate_broadcast(b, s, [g, s](Index i, Index j) { return Sign * g[j * s.rows + i]; });
    });
  }
  return c;
}
}  // namespace

Var add(const Var& a, const Var& b) {
  return add_signed<1>(a, b, "add");
}
Var subtract(const Var& a, const Var& b) {
  return add_signed<-1>(a, b, "subtract");
}

}  // namespace bvi::ad
