// l_beta_varying_intercept: beta_logit likelihood, y ~ x1 + x2 + (1 | g).
// Stan's beta_proportion(inv_logit(eta), phi) is bayes-vi's Beta(phi expit(eta), phi expit(-eta)).
// Non-centred: r_g = sd_g * z_g, z_g ~ N(0, 1), the same model as bayes-vi's centred
// r_g ~ N(0, sd_g). Every prior's family is fixed here, its numbers come from the config
// (tests/reference/multilevel/nuts_multilevel.py checks the families). Constants Stan drops
// (the half-normal's log 2, the normalizing constants) do not change the posterior.
// Names as bayes-vi's: alpha, beta[d], phi, sd_g[1], r_g[group, 1] (groups in bayes-vi's level
// order, which the runner computes).
data {
  int<lower=1> N;
  int<lower=1> D;
  matrix[N, D] X;
  vector<lower=0, upper=1>[N] y;
  int<lower=2> G_g;
  int<lower=1, upper=G_g> g[N];
  real alpha_loc;
  real<lower=0> alpha_scale;
  vector[D] beta_loc;
  vector<lower=0>[D] beta_scale;
  real<lower=0> phi_shape;            // gamma(shape, rate)
  real<lower=0> phi_rate;
  vector<lower=0>[1] sd_g_scale;      // half_normal
}
parameters {
  real alpha;
  vector[D] beta;
  real<lower=0> phi;
  vector<lower=0>[1] sd_g;
  matrix[G_g, 1] z_g;
}
transformed parameters {
  matrix[G_g, 1] r_g = sd_g[1] * z_g;
}
model {
  alpha ~ normal(alpha_loc, alpha_scale);
  beta ~ normal(beta_loc, beta_scale);
  phi ~ gamma(phi_shape, phi_rate);
  sd_g ~ normal(0, sd_g_scale);
  to_vector(z_g) ~ std_normal();
  y ~ beta_proportion(inv_logit(alpha + X * beta + r_g[g, 1]), phi);
}
