#pragma once
// One grouping factor of a model, as the rows this process holds see it: the factor's levels (the
// groups, over the whole dataset), each local row's group index, and the row's values of the
// varying slopes. Stored by index, never as a dense rows x groups design matrix: memory
// O(rows x slopes + groups), and the log joint gathers r[group(row)] (ad::group_effects).
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "models/data/row_matrix.hpp"

namespace bvi::data {

template <class T>
struct GroupData {
  std::string label;                // "county", or "school:class" for a combined factor: as outputs show it
  std::string ident;                // "county", "school_class": in parameter names r_F, sd_F, L_F, cor_F
  std::vector<std::string> levels;  // the groups, sorted (models/data/levels.hpp)
  std::vector<std::int32_t> level;  // per local row: its group's index in `levels`
  bool intercept = true;            // a varying intercept (effect 0)
  std::vector<std::string> slope_names;  // the varying slopes' design columns ("x", "sex[male]")
  RowMatrix<T> slopes;                   // local rows x slopes, row-major, in the data's precision
  bool correlated = true;
  Eigen::Index groups() const { return static_cast<Eigen::Index>(levels.size()); }
  // K: the effects per group, the varying intercept first.
  Eigen::Index effects() const { return (intercept ? 1 : 0) + slopes.cols(); }
};

}  // namespace bvi::data
