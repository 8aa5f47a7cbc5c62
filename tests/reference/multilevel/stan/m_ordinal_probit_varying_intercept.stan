// m_ordinal_probit_varying_intercept: ordinal_probit likelihood, y ~ x1 + x2 + (1 | g), no
// intercept (the K - 1 cutpoints take its place). Stan's ordered_probit(eta, c) is bayes-vi's
// cumulative probit: P(y = k) = Phi(c_k - eta) - Phi(c_{k-1} - eta), taken row by row (rstan
// 2.21's ordered_probit is not vectorized). Stan's `ordered` transform (c_1, then the logs of the
// gaps) is bayes-vi's; the prior is on each cutpoint, as bayes-vi's.
// Non-centred: r_g = sd_g * z_g, z_g ~ N(0, 1), the same model as bayes-vi's centred
// r_g ~ N(0, sd_g). Every prior's family is fixed here, its numbers come from the config
// (tests/reference/multilevel/nuts_multilevel.py checks the families). Constants Stan drops
// (the half-normal's log 2, the normalizing constants) do not change the posterior.
// Names as bayes-vi's: beta[d], cutpoints[k], sd_g[1], r_g[group, 1] (groups in bayes-vi's level
// order, which the runner computes).
data {
  int<lower=1> N;
  int<lower=1> D;
  matrix[N, D] X;
  int<lower=2> K;
  int<lower=1, upper=K> y[N];
  int<lower=2> G_g;
  int<lower=1, upper=G_g> g[N];
  vector[D] beta_loc;
  vector<lower=0>[D] beta_scale;
  real<lower=0> cutpoints_df;         // student_t(df, loc, scale) on each cutpoint
  real cutpoints_loc;
  real<lower=0> cutpoints_scale;
  vector<lower=0>[1] sd_g_scale;      // half_normal
}
parameters {
  vector[D] beta;
  ordered[K - 1] cutpoints;
  vector<lower=0>[1] sd_g;
  matrix[G_g, 1] z_g;
}
transformed parameters {
  matrix[G_g, 1] r_g = sd_g[1] * z_g;
}
model {
  vector[N] eta = X * beta + r_g[g, 1];
  beta ~ normal(beta_loc, beta_scale);
  cutpoints ~ student_t(cutpoints_df, cutpoints_loc, cutpoints_scale);
  sd_g ~ normal(0, sd_g_scale);
  to_vector(z_g) ~ std_normal();
  for (n in 1:N) y[n] ~ ordered_probit(eta[n], cutpoints);
}
