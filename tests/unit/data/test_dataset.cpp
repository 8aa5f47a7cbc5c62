// load_dataset: column choice, standardization against closed forms, float storage, row
// ranges, and the seed data set checked against its own text.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/data/dataset.hpp"
#include "models/data/standardize.hpp"
#include "support/temp_dir.hpp"

// Each test file has a namespace of its own: the unit tests compile in unity batches.
namespace test_dataset {

using bvi::data::Dataset;
using bvi::data::DataSpec;
using bvi::data::load_dataset;
using bvi::data::RowRange;

namespace {
std::string binary_check(double v) {
  return v == 0.0 || v == 1.0 ? "" : "response must be 0 or 1";
}
}  // namespace

TEST_CASE("default features are every column but the response, in file order") {
  bvi::test::TempDir dir;
  const std::string path = dir.write("d.csv", "a,y,b\n1,0,2\n3,1,4\n");
  const Dataset<double> d = load_dataset<double>(DataSpec{path, "y", {}, false}, binary_check);
  CHECK(d.path == path);
  CHECK(d.response_name == "y");
  CHECK(d.feature_names == std::vector<std::string>{"a", "b"});
  CHECK(d.total_rows == 2);
  CHECK(d.first_row == 0);
  REQUIRE(d.x.rows() == 2);
  REQUIRE(d.x.cols() == 2);
  CHECK(d.x(0, 0) == 1);
  CHECK(d.x(0, 1) == 2);
  CHECK(d.x(1, 0) == 3);
  CHECK(d.x(1, 1) == 4);
  CHECK(d.y(0) == 0);
  CHECK(d.y(1) == 1);
  CHECK(d.center.size() == 0);
  CHECK(d.scale.size() == 0);
}

TEST_CASE("chosen features come in the order asked for") {
  bvi::test::TempDir dir;
  const std::string path = dir.write("d.csv", "a,b,c,y\n1,2,3,0\n4,5,6,1\n");
  const Dataset<double> d =
      load_dataset<double>(DataSpec{path, "y", std::vector<std::string>{"c", "a"}, false}, binary_check);
  CHECK(d.feature_names == std::vector<std::string>{"c", "a"});
  REQUIRE(d.x.cols() == 2);
  CHECK(d.x(0, 0) == 3);
  CHECK(d.x(0, 1) == 1);
  CHECK(d.x(1, 0) == 6);
  CHECK(d.x(1, 1) == 4);
  // No features at all is allowed here (an intercept-only model); the config decides.
  const Dataset<double> none =
      load_dataset<double>(DataSpec{path, "y", std::vector<std::string>{}, false}, binary_check);
  CHECK(none.x.cols() == 0);
  CHECK(none.y.size() == 2);
}

TEST_CASE("standardization uses the mean and the sample sd (ddof = 1)") {
  bvi::test::TempDir dir;
  // a = 1, 2, 3, 4: mean 2.5, sum of squared deviations 5, sd = sqrt(5/3).
  // b = 10, 10, 10, 13: mean 10.75, squared deviations 3 * 0.5625 + 5.0625 = 6.75, sd = 1.5.
  const std::string path = dir.write("d.csv", "a,b,y\n1,10,0\n2,10,1\n3,10,0\n4,13,1\n");
  const Dataset<double> d = load_dataset<double>(DataSpec{path, "y", {}, true}, binary_check);
  const double sd_a = std::sqrt(5.0 / 3.0);
  REQUIRE(d.center.size() == 2);
  CHECK(d.center(0) == 2.5);
  CHECK(d.center(1) == 10.75);
  CHECK(d.scale(0) == doctest::Approx(sd_a).epsilon(1e-15));
  CHECK(d.scale(1) == 1.5);
  const double a_z[] = {-1.5 / sd_a, -0.5 / sd_a, 0.5 / sd_a, 1.5 / sd_a};
  const double b_z[] = {-0.5, -0.5, -0.5, 1.5};
  for (int i = 0; i < 4; ++i) {
    CHECK(d.x(i, 0) == doctest::Approx(a_z[i]).epsilon(1e-15));
    CHECK(d.x(i, 1) == b_z[i]);
  }
  // The response is never standardized.
  CHECK(d.y(3) == 1);
}

TEST_CASE("the statistics' building blocks are the per-shard partial sums") {
  bvi::data::RowMatrix<double> x(3, 2);
  x << 1, -2, 4, 0, 7, 5;
  Eigen::VectorXd sum, min, max;
  bvi::data::column_sums<double>(x, sum, min, max);
  CHECK(sum(0) == 12);
  CHECK(sum(1) == 3);
  CHECK(min(1) == -2);
  CHECK(max(0) == 7);
  const Eigen::VectorXd ss = bvi::data::squared_deviation_sums<double>(x, Eigen::Vector2d(4, 1));
  CHECK(ss(0) == 18);  // 9 + 0 + 9
  CHECK(ss(1) == 26);  // 9 + 1 + 16
}

TEST_CASE("float storage: features rounded once from the double, response kept in double") {
  bvi::test::TempDir dir;
  const std::string path = dir.write("d.csv", "a,b,y\n0.1,1e-30,0\n0.7,3.4028234663852886e38,1\n");
  const Dataset<float> d = load_dataset<float>(DataSpec{path, "y", {}, false}, binary_check);
  static_assert(std::is_same_v<decltype(d.x)::Scalar, float>);
  CHECK(d.x(0, 0) == static_cast<float>(0.1));
  CHECK(d.x(0, 1) == static_cast<float>(1e-30));
  CHECK(d.x(1, 0) == static_cast<float>(0.7));
  CHECK(d.x(1, 1) == std::numeric_limits<float>::max());
  CHECK(d.y(1) == 1.0);

  const std::string path2 = dir.write("s.csv", "a,y\n1,0\n2,1\n3,0\n4,1\n");
  const Dataset<float> s = load_dataset<float>(DataSpec{path2, "y", {}, true}, binary_check);
  const double sd = std::sqrt(5.0 / 3.0);
  CHECK(s.x(0, 0) == static_cast<float>(-1.5 / sd));
  CHECK(s.x(3, 0) == static_cast<float>(1.5 / sd));
}

TEST_CASE("a row range loads exactly those rows of the full load") {
  bvi::test::TempDir dir;
  std::string text = "x,y\n";
  for (int i = 0; i < 2500; ++i) text += std::to_string(i) + ".5," + std::to_string(i % 2) + "\n";
  const std::string path = dir.write("d.csv", text);
  const DataSpec spec{path, "y", {}, false};
  const Dataset<double> full = load_dataset<double>(spec, binary_check);
  const Dataset<double> part = load_dataset<double>(spec, binary_check, RowRange{1100, 1300});
  CHECK(part.total_rows == 2500);
  CHECK(part.first_row == 1100);
  REQUIRE(part.x.rows() == 1300);
  CHECK(part.x == full.x.middleRows(1100, 1300));
  CHECK(part.y == full.y.segment(1100, 1300));
  CHECK(part.x(0, 0) == 1100.5);
  CHECK(load_dataset<double>(spec, binary_check, RowRange{2500, 0}).x.rows() == 0);
  CHECK_THROWS_AS(load_dataset<double>(spec, binary_check, RowRange{2000, 501}), std::out_of_range);
}

TEST_CASE("the seed data set, checked against its text") {
  const std::string path = std::string(BVI_SOURCE_DIR) + "/data/seed_logistic.csv";
  const Dataset<double> d = load_dataset<double>(DataSpec{path, "y", {}, false}, binary_check);
  CHECK(d.total_rows == 100);
  REQUIRE(d.x.rows() == 100);
  REQUIRE(d.x.cols() == 10);
  CHECK(d.feature_names.front() == "x1");
  CHECK(d.feature_names.back() == "x10");
  // Line 2 of the file.
  CHECK(d.x(0, 0) == -0.20789968967437744);
  CHECK(d.x(0, 9) == -0.2904917299747467);
  CHECK(d.y(0) == 0);
  // Line 3.
  CHECK(d.x(1, 2) == 1.0004966259002686);
  CHECK(d.x(1, 8) == 0.014123206026852131);
  // Line 51: data row 49.
  CHECK(d.x(49, 6) == -0.7326815128326416);
  CHECK(d.x(49, 9) == 0.7921481728553772);
  // Line 101, the last.
  CHECK(d.x(99, 6) == -0.00048392932512797415);
  CHECK(d.x(99, 9) == 0.31392887234687805);
  // awk over the file: 43 of the 100 responses are 1.
  CHECK(d.y.sum() == 43);
}

}  // namespace test_dataset
