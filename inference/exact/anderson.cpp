#include "inference/exact/anderson.hpp"

#include <stdexcept>

namespace bvi::vi {

Eigen::VectorXd Anderson::next(const Eigen::VectorXd& x, const Eigen::VectorXd& f) {
  const Eigen::Index n = x.size();
  if (last_x_.size() == n) {
    // The oldest difference's storage takes the newest one: no allocation once the history is full.
    Eigen::VectorXd d_x = std::move(spare_x_), d_f = std::move(spare_f_);
    d_x.resize(n);
    d_f.resize(n);
    d_x = x - last_x_;
    d_f = f - last_f_;
    dx_.push_back(std::move(d_x));
    df_.push_back(std::move(d_f));
    if (static_cast<int>(dx_.size()) > memory_) {
      spare_x_ = std::move(dx_.front());
      spare_f_ = std::move(df_.front());
      dx_.pop_front();
      df_.pop_front();
    }
  } else {
    dx_.clear();
    df_.clear();
  }
  last_x_ = x;
  last_f_ = f;
  Eigen::VectorXd out = x + f;
  const auto k = static_cast<Eigen::Index>(dx_.size());
  if (k == 0) return out;
  if (DF_.rows() != n) {
    DF_.resize(n, memory_);
    DX_.resize(n, memory_);
    sum_.resize(n, memory_);
  }
  auto DF = DF_.leftCols(k), DX = DX_.leftCols(k), sum = sum_.leftCols(k);
  for (Eigen::Index i = 0; i < k; ++i) {
    DF.col(i) = df_[static_cast<std::size_t>(i)];
    DX.col(i) = dx_[static_cast<std::size_t>(i)];
  }
  sum = DX + DF;
  // Least squares by column-pivoting QR, which drops directions that are numerically dependent.
  // In place, in DF_'s storage (rebuilt from df_ at every call): a QR object holding its own copy
  // reallocated n x k doubles whenever k changed, and the history restarts often.
  Eigen::ColPivHouseholderQR<Eigen::Ref<Eigen::MatrixXd>> qr(DF);
  qr.setThreshold(1e-10);
  const Eigen::VectorXd gamma = qr.solve(f);
  if (!gamma.allFinite()) return out;
  out -= sum * gamma;
  return out;
}

void Anderson::reset() {
  last_x_.resize(0);
  last_f_.resize(0);
  dx_.clear();
  df_.clear();
}

std::vector<double> Anderson::state() const {
  // [n, k, last_x (n), last_f (n), dx_1..dx_k (n each), df_1..df_k (n each)]
  const auto n = static_cast<double>(last_x_.size());
  std::vector<double> s{n, static_cast<double>(dx_.size())};
  auto put = [&](const Eigen::VectorXd& v) { s.insert(s.end(), v.data(), v.data() + v.size()); };
  put(last_x_);
  put(last_f_);
  for (const auto& v : dx_) put(v);
  for (const auto& v : df_) put(v);
  return s;
}

void Anderson::set_state(const std::vector<double>& s) {
  reset();
  if (s.size() < 2) throw std::invalid_argument("anderson: bad state");
  const auto n = static_cast<Eigen::Index>(s[0]);
  const auto k = static_cast<std::size_t>(s[1]);
  if (s.size() != 2 + static_cast<std::size_t>(n) * (2 + 2 * k))
    throw std::invalid_argument("anderson: bad state");
  const double* p = s.data() + 2;
  auto take = [&] {
    Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(p, n);
    p += n;
    return v;
  };
  if (n > 0) {
    last_x_ = take();
    last_f_ = take();
  }
  for (std::size_t i = 0; i < k; ++i) dx_.push_back(take());
  for (std::size_t i = 0; i < k; ++i) df_.push_back(take());
}

}  // namespace bvi::vi
