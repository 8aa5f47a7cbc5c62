// Eigen's matrix-product and triangular-solve kernels, compiled once (common/eigen_kernels.cpp)
// instead of in every translation unit that multiplies two matrices.
//
// Eigen is header-only: each file with a matrix product instantiates the blocked GEMM kernel and
// its packing routines for itself, and a GEMM costs about 1 s of g++ -O3 time and 5 s of clang's
// sanitizer build per file (measured on a one-line file), compiled again in some forty files of
// the library and the tests. The declarations below tell every file that sees them (this header is
// in the precompiled headers, cmake/compile_time.cmake) that these specializations are
// instantiated elsewhere; the code and its results are the same bits, only compiled once.
//
// Each entry is one specialization the project uses (nm on the objects lists them). The packet
// sizes come from Eigen's own traits, so the list holds for any instruction set (-march=native
// gives AVX-512 blocks of 24 doubles, the sanitizer tree's SSE2 blocks of 4). An entry that
// matches no use costs nothing; a use that no entry matches is compiled where it is used, as
// before.
#pragma once

#include <Eigen/Core>

#define BVI_EIGEN_KERNELS(X)                                                                                   \
  /* GEMM (general_matrix_matrix_product's run is inline; its blocks, kernel and packing are not) */         \
  X struct gebp_kernel<double, double, Index, blas_data_mapper<double, Index, ColMajor, Unaligned, 1>,         \
                       gebp_traits<double, double>::mr, gebp_traits<double, double>::nr, false, false>;       \
  X struct gebp_kernel<float, float, Index, blas_data_mapper<float, Index, ColMajor, Unaligned, 1>,            \
                       gebp_traits<float, float>::mr, gebp_traits<float, float>::nr, false, false>;           \
  X struct gemm_pack_lhs<double, Index, const_blas_data_mapper<double, Index, ColMajor>,                       \
                         gebp_traits<double, double>::mr, gebp_traits<double, double>::LhsProgress,           \
                         gebp_traits<double, double>::LhsPacket4Packing, ColMajor>;                           \
  X struct gemm_pack_lhs<double, Index, const_blas_data_mapper<double, Index, RowMajor>,                       \
                         gebp_traits<double, double>::mr, gebp_traits<double, double>::LhsProgress,           \
                         gebp_traits<double, double>::LhsPacket4Packing, RowMajor>;                           \
  X struct gemm_pack_lhs<float, Index, const_blas_data_mapper<float, Index, ColMajor>,                         \
                         gebp_traits<float, float>::mr, gebp_traits<float, float>::LhsProgress,               \
                         gebp_traits<float, float>::LhsPacket4Packing, ColMajor>;                             \
  X struct gemm_pack_rhs<double, Index, const_blas_data_mapper<double, Index, ColMajor>,                       \
                         gebp_traits<double, double>::nr, ColMajor>;                                          \
  X struct gemm_pack_rhs<double, Index, const_blas_data_mapper<double, Index, RowMajor>,                       \
                         gebp_traits<double, double>::nr, RowMajor>;                                          \
  X struct gemm_pack_rhs<float, Index, const_blas_data_mapper<float, Index, ColMajor>,                         \
                         gebp_traits<float, float>::nr, ColMajor>;                                            \
  X struct gemm_pack_rhs<float, Index, const_blas_data_mapper<float, Index, RowMajor>,                         \
                         gebp_traits<float, float>::nr, RowMajor>;                                            \
  /* GEMV */                                                                                                  \
  X struct general_matrix_vector_product<Index, double, const_blas_data_mapper<double, Index, ColMajor>,       \
                                         ColMajor, false, double,                                             \
                                         const_blas_data_mapper<double, Index, ColMajor>, false, 0>;          \
  X struct general_matrix_vector_product<Index, double, const_blas_data_mapper<double, Index, ColMajor>,       \
                                         ColMajor, false, double,                                             \
                                         const_blas_data_mapper<double, Index, RowMajor>, false, 0>;          \
  X struct general_matrix_vector_product<Index, double, const_blas_data_mapper<double, Index, RowMajor>,       \
                                         RowMajor, false, double,                                             \
                                         const_blas_data_mapper<double, Index, ColMajor>, false, 0>;          \
  X struct general_matrix_vector_product<Index, double, const_blas_data_mapper<double, Index, RowMajor>,       \
                                         RowMajor, false, double,                                             \
                                         const_blas_data_mapper<double, Index, RowMajor>, false, 1>;          \
  /* Triangular solves with several right-hand sides: <Scalar, Index, Side, Mode, Conjugate,                  \
     TriStorageOrder, OtherStorageOrder, OtherInnerStride> */                                                 \
  X struct triangular_solve_matrix<double, Index, OnTheLeft, Lower, false, ColMajor, ColMajor, 1>;            \
  X struct triangular_solve_matrix<double, Index, OnTheLeft, Upper, false, ColMajor, ColMajor, 1>;            \
  X struct triangular_solve_matrix<double, Index, OnTheLeft, Upper, false, RowMajor, ColMajor, 1>;            \
  X struct triangular_solve_matrix<double, Index, OnTheLeft, UnitLower, false, ColMajor, ColMajor, 1>;        \
  X struct triangular_solve_matrix<double, Index, OnTheRight, Lower, false, ColMajor, ColMajor, 1>;           \
  X struct triangular_solve_matrix<double, Index, OnTheRight, Upper, false, RowMajor, ColMajor, 1>;           \
  X struct triangular_solve_matrix<double, Index, OnTheRight, UnitUpper, false, ColMajor, ColMajor, 1>;       \
  /* Triangular times general: <Scalar, Index, Mode, LhsIsTriangular, LhsStorageOrder, ConjugateLhs,          \
     RhsStorageOrder, ConjugateRhs, ResStorageOrder, ResInnerStride, Version> */                             \
  X struct product_triangular_matrix_matrix<double, Index, Lower, false, RowMajor, false, ColMajor, false,     \
                                            ColMajor, 1, Specialized>;                                        \
  X struct product_triangular_matrix_matrix<double, Index, Lower, true, ColMajor, false, ColMajor, false,      \
                                            ColMajor, 1, Specialized>;                                        \
  X struct product_triangular_matrix_matrix<double, Index, Upper, true, RowMajor, false, ColMajor, false,      \
                                            ColMajor, 1, Specialized>;                                        \
  X struct product_triangular_matrix_matrix<double, Index, UnitLower, true, ColMajor, false, ColMajor, false,  \
                                            ColMajor, 1, Specialized>;                                        \
  X struct product_triangular_matrix_matrix<double, Index, UnitUpper, true, RowMajor, false, ColMajor, false,  \
                                            ColMajor, 1, Specialized>;                                        \
  X struct triangular_matrix_vector_product<Index, UnitUpper, double, false, double, false, RowMajor,          \
                                            Specialized>;                                                     \
  X struct selfadjoint_matrix_vector_product<double, Index, ColMajor, Lower, false, false, Specialized>;

namespace Eigen::internal {
BVI_EIGEN_KERNELS(extern template)
}  // namespace Eigen::internal
