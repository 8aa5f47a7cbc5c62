// A chunk's own columns (models/chunk_columns.hpp), worked by hand on 12 rows in 3 chunks: the
// leading columns, then per factor the chunk's levels ascending with their K effects; gather and
// add as a pair; categorical_logit's category-major r blocks; a layout whose effects are not last
// refused. Then the log joint's gradient through them against the likelihood differentiated in one
// block over the model's columns, with groups that outnumber a chunk's rows.
#include <doctest/doctest.h>

#include <random>
#include <stdexcept>

#include "inference/ad/tape.hpp"
#include "inference/reduce/chunk_reducer.hpp"
#include "models/chunk_columns.hpp"
#include "models/log_joint.hpp"
#include "support/multilevel_fixture.hpp"

namespace test_chunk_columns {

using namespace bvi;
using Eigen::Index;

namespace {

// 12 rows, chunks of 4 (blocks of 4, one block a chunk): factor a (5 groups, K = 3), b (3, K = 1).
test::MultilevelData<double> hand_data() {
  auto d = test::multilevel_data<double>(12, 2, 5, 3, 1);
  d.groups[0].level = {4, 1, 4, 0, 2, 2, 2, 2, 3, 0, 1, 3};
  d.groups[1].level = {0, 0, 0, 0, 2, 1, 2, 1, 0, 1, 2, 0};
  return d;
}

// Rows with zero features of `cols` columns and one factor "g" of `groups` levels (intercepts
// only), each row's level given.
struct OneFactor {
  data::GroupData<double> g;
  Eigen::VectorXd y;
  data::RowMatrix<double> x;
  models::DataView<double> view;
  OneFactor(const OneFactor&) = delete;  // the view points into it
  OneFactor(std::vector<std::int32_t> level, int groups, Index cols) {
    const auto n = static_cast<Index>(level.size());
    g.label = g.ident = "g";
    for (int l = 1; l <= groups; ++l) g.levels.push_back("g" + std::to_string(l));
    g.level = std::move(level);
    g.slopes.resize(n, 0);
    y = Eigen::VectorXd::Ones(n);
    x = data::RowMatrix<double>::Zero(n, cols);
    view = {x.data(), y.data(), n, cols, 0, n};
    view.groups = &g;
    view.n_groups = 1;
  }
};

// values(s, j) = 1000 j + s, S x P column-major.
Eigen::MatrixXd numbered(Index S, Index P) {
  Eigen::MatrixXd v(S, P);
  for (Index j = 0; j < P; ++j)
    for (Index s = 0; s < S; ++s) v(s, j) = 1000.0 * static_cast<double>(j) + static_cast<double>(s);
  return v;
}

}  // namespace

TEST_CASE("chunk columns: the leading columns, then each factor's levels of the chunk, ascending") {
  const auto d = hand_data();
  const models::Model model = test::multilevel_model(d, "normal", true);
  // alpha, beta (2), sigma, sd_a (3), L_a (3), sd_b: 11 columns; r_a 5 x 3 = 15 from 11; r_b 3 from 26.
  REQUIRE(model.dim() == 29);
  REQUIRE(model.layout().find("r_a")->offset == 11);
  REQUIRE(model.layout().find("r_b")->offset == 26);
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(12, 4), comm, 1);
  REQUIRE(reducer.plan().n_chunks == 3);
  const models::ChunkColumns cc(model.layout(), d.view(), reducer);

  // a's levels per chunk {0, 1, 4}, {2}, {0, 1, 3}; b's {0}, {1, 2}, {0, 1, 2}.
  CHECK(cc.width(0) == 11 + 3 * 3 + 1);
  CHECK(cc.width(1) == 11 + 1 * 3 + 2);
  CHECK(cc.width(2) == 11 + 3 * 3 + 3);
  CHECK(cc.max_width() == 23);
  CHECK(cc.local_groups(0)[0] == 3);
  CHECK(cc.local_groups(0)[1] == 1);
  CHECK(cc.local_groups(1)[0] == 1);
  CHECK(cc.local_groups(1)[1] == 2);
  const std::int32_t expect_a[] = {2, 1, 2, 0, 0, 0, 0, 0, 2, 0, 1, 2};
  const std::int32_t expect_b[] = {0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 2, 0};
  for (int r = 0; r < 12; ++r) {
    CHECK(cc.local_levels()[0][r] == expect_a[r]);
    CHECK(cc.local_levels()[1][r] == expect_b[r]);
  }

  const Index S = 2;
  const Eigen::MatrixXd v = numbered(S, 29);
  Eigen::MatrixXd local(S, cc.max_width());
  cc.gather(0, v.data(), S, local.data());
  // Chunk 0: columns 0..10, r_a level 0 (11..13), level 1 (14..16), level 4 (23..25), r_b level 0 (26).
  const Index from[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26};
  for (Index j = 0; j < 21; ++j)
    for (Index s = 0; s < S; ++s) CHECK(local(s, j) == v(s, from[j]));
  cc.gather(1, v.data(), S, local.data());
  // Chunk 1: r_a level 2 (17..19), r_b levels 1 and 2 (27, 28).
  const Index from1[] = {17, 18, 19, 27, 28};
  for (Index j = 0; j < 5; ++j) CHECK(local(1, 11 + j) == v(1, from1[j]));

  // add is gather's transpose: the chunk's columns come back, every other column stays 0.
  for (Index c = 0; c < 3; ++c) {
    cc.gather(c, v.data(), S, local.data());
    Eigen::MatrixXd total = Eigen::MatrixXd::Zero(S, 29);
    cc.add(c, local.data(), S, total.data());
    Index nonzero_cols = 0;
    for (Index j = 0; j < 29; ++j) {
      if (total.col(j).isZero(0)) continue;
      ++nonzero_cols;
      CHECK(total.col(j) == v.col(j));
    }
    CHECK(nonzero_cols == cc.width(c));
  }
}

TEST_CASE("chunk columns: categorical_logit's r blocks are category-major, each category the chunk's levels") {
  // alpha (2 categories with effects of their own), beta, sd_g (2 x 1), r_g: 2 categories x 4 groups.
  models::ParameterLayout layout;
  layout.set_categories(3, 1);
  layout.add({"alpha", 0, 2, true, {}, models::Support::real, {}});
  layout.add({"beta", 0, 2, true, {}, models::Support::real, {}});
  layout.add({"sd_g", 0, 2, true, {}, models::Support::positive, {}});
  layout.add({"r_g", 0, 8, true, {}, models::Support::real, {}});
  const OneFactor data({3, 1, 1, 3, 0, 2}, 4, 2);
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(6, 3), comm, 1);
  const models::ChunkColumns cc(layout, data.view, reducer);
  REQUIRE(cc.width(0) == 6 + 2 * 2);  // levels {1, 3} per category
  const Eigen::MatrixXd v = numbered(1, 14);
  Eigen::MatrixXd local(1, cc.max_width());
  cc.gather(0, v.data(), 1, local.data());
  // Category 1: columns 6 + 1, 6 + 3; category 2: 10 + 1, 10 + 3.
  const Index from[] = {0, 1, 2, 3, 4, 5, 7, 9, 11, 13};
  for (Index j = 0; j < 10; ++j) CHECK(local(0, j) == v(0, from[j]));
  CHECK(cc.local_levels()[0][0] == 1);
  CHECK(cc.local_levels()[0][1] == 0);
  CHECK(cc.local_levels()[0][3] == 2);  // chunk 1's levels {0, 2, 3}
  CHECK(cc.local_levels()[0][4] == 0);
  CHECK(cc.local_levels()[0][5] == 1);
  CHECK(cc.width(1) == 6 + 2 * 3);
}

TEST_CASE("chunk columns: a layout whose group effects are not its last blocks is refused") {
  models::ParameterLayout layout;
  layout.add({"beta", 0, 1, true, {}, models::Support::real, {}});
  layout.add({"r_g", 0, 2, true, {}, models::Support::real, {}});
  layout.add({"sigma", 0, 1, false, {}, models::Support::positive, {}});
  const OneFactor data({0, 1}, 2, 1);
  reduce::SerialCommunicator comm;
  reduce::ChunkReducer reducer(reduce::ShardPlan::make(2, 1), comm, 1);
  CHECK_THROWS_AS(models::ChunkColumns(layout, data.view, reducer), std::logic_error);
}

TEST_CASE("log joint: the gradient over chunks' own columns equals the likelihood's over the model's") {
  // 40 groups of a against chunks of 8 rows: every chunk holds a few of them.
  const auto d = test::multilevel_data<double>(320, 3, 40, 7, 17);
  for (const char* lik : {"bernoulli_logit", "normal", "poisson_log"}) {
    INFO(lik);
    const models::Model model = test::multilevel_model(d, lik, true);
    const Index P = model.dim(), S = 5;
    std::mt19937_64 rng(4);
    std::normal_distribution<double> normal(0.0, 0.4);
    Eigen::MatrixXd theta(S, P);
    for (Index i = 0; i < theta.size(); ++i) theta.data()[i] = normal(rng);
    if (const auto* sigma = model.layout().find("sigma")) theta.col(sigma->offset).array() = 0.8;

    models::DataView<double> view = d.view();
    if (std::string(lik) == "poisson_log") view.offset = d.offset.data();
    reduce::SerialCommunicator comm;
    reduce::ChunkReducer reducer(reduce::ShardPlan::make(320, 8), comm, 2);
    REQUIRE(reducer.plan().n_chunks == 40);
    models::LogJointOptions options;
    options.prior = false;
    models::LogJoint<double> lj(model, view, reducer, options);
    Eigen::VectorXd lp(S);
    Eigen::MatrixXd grad;
    lj.evaluate(theta, lp, &grad, models::Scale::constrained);

    // The reference: every row in one block, the tape's leaf over all P columns.
    ad::Tape tape(std::size_t(16) << 20);
    Eigen::MatrixXd adj = Eigen::MatrixXd::Zero(S, P);
    const ad::Var p = tape.leaf(theta.data(), adj.data(), S, P);
    const ad::Var ll = model.likelihood().log_lik(p, view.block(0, 320));
    tape.backward(ll);
    const Eigen::VectorXd ref = ll.val().col(0).matrix();
    CHECK((lp - ref).cwiseAbs().maxCoeff() <= 1e-12 * ref.cwiseAbs().maxCoeff());
    CHECK((grad - adj).cwiseAbs().maxCoeff() <= 1e-12 * (1.0 + adj.cwiseAbs().maxCoeff()));
    // The chunks did read fewer columns than the model's.
    CHECK(models::ChunkColumns(model.layout(), view, reducer).max_width() < P / 2);
  }
}

}  // namespace test_chunk_columns
