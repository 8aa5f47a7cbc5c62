#include "models/log_joint.hpp"

#include <algorithm>
#include <cmath>

#include "inference/ad/ad.hpp"
#include "models/pooled_response.hpp"

namespace bvi::models {

template <class T>
LogJoint<T>::LogJoint(const Model& model, DataView<T> data, reduce::ChunkReducer& reducer,
                      LogJointOptions options)
    : model_(model), data_(data), reducer_(reducer), options_(options) {
  for (int t = 0; t < reducer_.threads(); ++t)
    tapes_.push_back(std::make_unique<ad::Tape>(std::size_t(4) << 20));
  // Terms such as log C(n, y) depend on the data alone: computed once here, not in every pass.
  for (int f = 0; f < data_.n_groups; ++f) group_effects_ += data_.groups[f].effects();
  log_constants_.resize(data_.rows);
  if (!model_.likelihood().log_constants(data_.y, data_.trials, data_.rows, log_constants_.data()))
    log_constants_.resize(0);
}

template <class T>
void LogJoint<T>::evaluate(const Eigen::Ref<const Eigen::MatrixXd>& theta, Eigen::Ref<Eigen::VectorXd> lp,
                           Eigen::MatrixXd* grad, Scale scale) {
  const Index S = theta.rows();
  if (grad) grad->resize(S, dim());
  for (Index s0 = 0; s0 < S; s0 += options_.max_batch) {
    const Index n = std::min(options_.max_batch, S - s0);
    evaluate_batch(theta.middleRows(s0, n), lp.segment(s0, n), grad, s0, scale);
  }
}

template <class T>
void LogJoint<T>::evaluate_batch(const Eigen::Ref<const Eigen::MatrixXd>& theta,
                                 Eigen::Ref<Eigen::VectorXd> lp, Eigen::MatrixXd* grad, Index grad_row,
                                 Scale scale) {
  const Index S = theta.rows(), P = dim();
  theta_buf_ = theta;  // contiguous column-major copy; reuses its storage when S is unchanged
  if (grad) grad_buf_.setZero(S, P);

  // Head: transforms, Jacobian and priors, once for the batch.
  head_tape_.rewind();
  ad::Var theta_var = grad ? head_tape_.leaf(theta_buf_.data(), grad_buf_.data(), S, P)
                           : head_tape_.constant(theta_buf_.data(), S, P);
  ad::Var log_jac;
  ad::Var params = scale == Scale::unconstrained ? model_.constrain(theta_var, &log_jac) : theta_var;
  ad::Var head;
  if (options_.prior) {
    head = model_.log_prior(params);
    if (log_jac.rows() > 0) head = ad::add(head, log_jac);
  } else {
    head = model_.log_prior_terms(params, options_.sampled_prior_terms);
  }

  // Likelihood: the rows this process holds, block by block, each chunk into its own slot. A
  // gradient pass with grouping factors differentiates each chunk's own columns (ChunkColumns):
  // the slot holds S x width(chunk) of them, added to the S x P total at the model's columns.
  if (grad && data_.n_groups > 0 && !columns_) {
    columns_ = std::make_unique<ChunkColumns>(model_.layout(), data_, reducer_);
    chunk_values_.resize(tapes_.size());
  }
  const ChunkColumns* columns = grad ? columns_.get() : nullptr;
  const Index total_len = grad ? S + S * P : S;
  const Index len = columns ? S + S * columns->max_width() : total_len;
  // Grows to the largest request and stays: value-only and gradient passes alternate in a run,
  // and resizing to each one's length would reallocate every time.
  if (total_.size() < total_len) total_.resize(total_len);
  total_.head(total_len).setZero();
  // What the row-block work needs, behind one pointer: a lambda capturing all of it by
  // reference would not fit std::function's small buffer and would allocate on every call.
  struct BlockWork {
    LogJoint& self;
    const double* param_vals;
    Index S, P;
    bool grad;
    const ChunkColumns* columns;
    Index total_len;
  } ctx{*this, params.val_data(), S, P, grad != nullptr, columns, total_len};
  reducer_.sum(
      len,
      [w = &ctx](int thread, Index chunk, double* partial) {
        LogJoint& lj = w->self;
        const reduce::ShardPlan& plan = lj.reducer_.plan();
        const Likelihood& lik = lj.model_.likelihood();
        ad::Tape& tape = *lj.tapes_[thread];
        const Index S = w->S;
        const DataView<T>& dv = lj.data_;
        const auto [begin, end] = dv.chunk_rows(plan, chunk);
        // The chunk's own columns of the draws (grows once per thread to the widest chunk's).
        const double* vals = w->param_vals;
        Index P = w->P;
        if (w->columns) {
          P = w->columns->width(chunk);
          Eigen::VectorXd& buf = lj.chunk_values_[static_cast<std::size_t>(thread)];
          if (buf.size() < S * w->columns->max_width()) buf.resize(S * w->columns->max_width());
          w->columns->gather(chunk, w->param_vals, S, buf.data());
          vals = buf.data();
        }
        for (Index local = begin; local < end; local += plan.block_rows) {
          const Index m = std::min(plan.block_rows, end - local);
          DataBlock<T> block = dv.block(local, m);
          if (lj.log_constants_.size()) block.log_constant = lj.log_constants_.data() + local;
          if (w->columns) {
            block.local_level = w->columns->local_levels();
            block.local_groups = w->columns->local_groups(chunk);
          }
          tape.rewind();
          ad::Var p = w->grad ? tape.leaf(vals, partial + S, S, P) : tape.constant(vals, S, P);
          ad::Var ll = lik.log_lik(p, block);
          if (w->grad) tape.backward(ll);
          Eigen::Map<Eigen::ArrayXd>(partial, S) += ll.val().col(0);
        }
      },
      [w = &ctx](Index chunk, const double* slot) {
        double* total = w->self.total_.data();
        if (!w->columns) {
          Eigen::Map<Eigen::ArrayXd>(total, w->total_len) += Eigen::Map<const Eigen::ArrayXd>(slot, w->total_len);
          return;
        }
        Eigen::Map<Eigen::ArrayXd>(total, w->S) += Eigen::Map<const Eigen::ArrayXd>(slot, w->S);
        w->columns->add(chunk, slot + w->S, w->S, total + w->S);
      },
      // logits and their backward pass: about 2 (value) or 4 (gradient) flops per draw, row, feature
      // or group effect
      (grad ? 4.0 : 2.0) * static_cast<double>(S) * static_cast<double>(data_.rows) *
          static_cast<double>(data_.cols + 1 + group_effects_));

  lp = head.val().col(0).matrix() + total_.head(S);
  if (grad) {
    // d lik / d params, reduced over all rows, enters the head tape where params was made, and the
    // head's backward pass adds the prior and Jacobian terms and carries it back to theta.
    params.adj() += Eigen::Map<const Eigen::ArrayXXd>(total_.data() + S, S, P);
    head_tape_.backward(head);
    grad->middleRows(grad_row, S) = grad_buf_;
  }
}

template <class T>
Eigen::VectorXd LogJoint<T>::initial_mean() {
  Eigen::VectorXd m = Eigen::VectorXd::Zero(dim());
  model_.likelihood().start_own_parameters(m);
  const Index scale = model_.likelihood().scale_column();
  if (scale < 0) return m;
  const PooledResponse y = pooled_response(data_, reducer_);
  if (!(y.weight > 1.0)) return m;
  const double u = model_.likelihood().initial_scale(y.mean, y.var);
  if (std::isfinite(u)) m[scale] = u;
  model_.start_group_scales(m);
  return m;
}

template class LogJoint<double>;
template class LogJoint<float>;

}  // namespace bvi::models
