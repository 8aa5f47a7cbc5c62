#include "models/design/fill_design.hpp"

namespace bvi::models::design {

template <class T>
void fill_columns(const std::vector<Column>& columns, const RowSource<T>& source, Eigen::Index rows,
                  data::RowMatrix<T>& out) {
  const auto D = static_cast<Eigen::Index>(columns.size());
  out.resize(rows, D);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < D; ++j) {
      double v = 1.0;
      for (const Factor& f : columns[static_cast<std::size_t>(j)].factors) {
        const auto var = static_cast<std::size_t>(f.variable);
        if (f.level < 0)
          v *= static_cast<double>((*source.numeric)(i, source.numeric_column[var]));
        else
          v *= (*source.levels[var])[static_cast<std::size_t>(i)] == f.level ? 1.0 : 0.0;
      }
      out(i, j) = static_cast<T>(v);
    }
}

template void fill_columns<float>(const std::vector<Column>&, const RowSource<float>&, Eigen::Index,
                                  data::RowMatrix<float>&);
template void fill_columns<double>(const std::vector<Column>&, const RowSource<double>&, Eigen::Index,
                                   data::RowMatrix<double>&);

}  // namespace bvi::models::design
