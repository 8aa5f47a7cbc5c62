#pragma once
// ExpectedLikelihood's per-thread scratch, shared by its translation units (expected_likelihood.cpp:
// meanfield and fullrank passes; expected_likelihood_sparse.cpp: the sparse family's). Internal.
#include "models/expected_likelihood.hpp"

namespace bvi::models {

constexpr Index kRows = quadrature::ExpectationScratch::kRows;

template <class T>
struct ExpectedLikelihood<T>::ThreadScratch {
  quadrature::ExpectationScratch quad;
  Eigen::ArrayXd m, v, c, value, dm, dv, dc;
  Eigen::ArrayXd y_shifted;  // the sub-block's y less the location (shifted_rows)
  // fullrank: the sub-block's dense design x~ (n x des), L_des' x~ per row, and x~ scaled by dv
  Eigen::MatrixXd xt, y, w;
  ad::Arena arena{std::size_t(1) << 20};
  ad::GemmWorkspace<double> gemm{arena};
  ThreadScratch(Index des, Index P, bool dense) {
    quad.reserve();
    for (Eigen::ArrayXd* a : {&m, &v, &c, &value, &dm, &dv, &dc, &y_shifted}) a->setZero(kRows);
    if (dense) {
      xt.setZero(kRows, des);
      y.setZero(kRows, P);
      w.setZero(kRows, des);
    }
  }
  // sparse: the population part of the design (kRows x lin) and its products; the lin x lin
  // gradient block and X' dc; a row's varying-effect values
  Eigen::MatrixXd g_lin;
  Eigen::VectorXd dc_lin, z;
  void sparse(Index lin, Index max_effects) {
    z.setZero(max_effects);
    xt.setZero(kRows, lin);
    y.setZero(kRows, lin);
    w.setZero(kRows, lin);
    g_lin.setZero(lin, lin);
    dc_lin.setZero(lin);
  }
};

}  // namespace bvi::models
