#pragma once
#include <Eigen/Core>

namespace bvi::data {

// Features as loaded: one data row per matrix row, contiguous, so a block of rows is one slice.
template <class T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace bvi::data
