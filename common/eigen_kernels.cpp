// The one instantiation of each Eigen kernel that common/eigen_kernels.hpp declares.
#include "common/eigen_kernels.hpp"

namespace Eigen::internal {
BVI_EIGEN_KERNELS(template)
}  // namespace Eigen::internal
