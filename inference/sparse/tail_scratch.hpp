#pragma once
// SparseFactor's dense-tail scratch (sparse_factor.cpp, sparse_factor_inverse.cpp): the Schur
// complement being factorized and the widest columns' W, then the selected inverse's L22, Z22,
// L22^-1, W and Y. Shared by the factors of a thread (each holds its tail only while it factorizes
// or inverts): two m x m matrices however many factors a fit keeps, which the memory estimate
// counts (cli/sparse_fill.hpp).
#include <Eigen/Core>

namespace bvi::vi {

struct TailScratch {
  Eigen::MatrixXd a, b;
};

TailScratch& tail_scratch();

}  // namespace bvi::vi
