#include "inference/ad/ops/multiply.hpp"

#include "inference/ad/broadcast.hpp"
#include "inference/ad/tape.hpp"

namespace bvi::ad {

Var multiply(const Var& a, const Var& b) {
  const Shape s = broadcast_shape(a, b, "multiply");
  Tape& tape = a.tape();
  Var c = tape.make(s.rows, s.cols, any_adj(a, b));
  broadcast_apply(a, b, tape.val_ptr(c), s, [](double x, double y) { return x * y; });
  if (c.has_adj()) {
    tape.on_backward([a, b, c, s] {
      if (a.has_adj()) accumulate_product(a, b, c.adj_data(), s);
      if (b.has_adj()) accumulate_product(b, a, c.adj_data(), s);
    });
  }
  return c;
}

}  // namespace bvi::ad
