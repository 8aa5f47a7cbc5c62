#include "models/data/standardize.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace bvi::data {

template <class T>
void column_sums(const Eigen::Ref<const RowMatrix<T>>& x, Eigen::VectorXd& sum, Eigen::VectorXd& min,
                 Eigen::VectorXd& max) {
  const Eigen::Index D = x.cols();
  sum = Eigen::VectorXd::Zero(D);
  min = Eigen::VectorXd::Constant(D, std::numeric_limits<double>::infinity());
  max = Eigen::VectorXd::Constant(D, -std::numeric_limits<double>::infinity());
  // Row by row: each feature's sum runs in file order, and the inner loop over a contiguous
  // row vectorizes across features.
  Eigen::VectorXd row(D);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    row = x.row(i).transpose().template cast<double>();
    sum += row;
    min = min.cwiseMin(row);
    max = max.cwiseMax(row);
  }
}

template <class T>
Eigen::VectorXd squared_deviation_sums(const Eigen::Ref<const RowMatrix<T>>& x, const Eigen::VectorXd& mean) {
  if (mean.size() != x.cols()) throw std::invalid_argument("squared_deviation_sums: mean has the wrong size");
  Eigen::VectorXd ss = Eigen::VectorXd::Zero(x.cols());
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    ss += (x.row(i).template cast<double>().transpose() - mean).cwiseAbs2();
  return ss;
}

template <class T>
FeatureStats compute_feature_stats(const RowMatrix<T>& x) {
  FeatureStats s;
  s.rows = x.rows();
  Eigen::VectorXd sum;
  column_sums<T>(x, sum, s.min, s.max);
  s.mean = sum / static_cast<double>(s.rows);
  if (s.rows >= 2)
    s.sd = (squared_deviation_sums<T>(x, s.mean) / static_cast<double>(s.rows - 1)).cwiseSqrt();
  else
    s.sd = Eigen::VectorXd::Zero(x.cols());
  return s;
}

template <class T>
void apply_standardization(RowMatrix<T>& x, const Eigen::VectorXd& center, const Eigen::VectorXd& scale) {
  if (center.size() != x.cols() || scale.size() != x.cols())
    throw std::invalid_argument("apply_standardization: center/scale have the wrong size");
  const Eigen::ArrayXXd c = center.transpose().array(), s = scale.transpose().array();
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    x.row(i) = ((x.row(i).array().template cast<double>() - c) / s).template cast<T>().matrix();
}

#define BVI_INSTANTIATE(T)                                                                                 \
  template void column_sums<T>(const Eigen::Ref<const RowMatrix<T>>&, Eigen::VectorXd&, Eigen::VectorXd&,      \
                               Eigen::VectorXd&);                                                           \
  template Eigen::VectorXd squared_deviation_sums<T>(const Eigen::Ref<const RowMatrix<T>>&,                  \
                                                     const Eigen::VectorXd&);                                \
  template FeatureStats compute_feature_stats<T>(const RowMatrix<T>&);                                     \
  template void apply_standardization<T>(RowMatrix<T>&, const Eigen::VectorXd&, const Eigen::VectorXd&);
BVI_INSTANTIATE(float)
BVI_INSTANTIATE(double)
#undef BVI_INSTANTIATE

}  // namespace bvi::data
