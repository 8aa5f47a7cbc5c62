// d_weak_logistic: bernoulli_logit, y ~ x + (1 | g), 200 groups of 3-10 rows.
// Non-centred: r_g = sd_g * z_g, z_g ~ N(0, 1).
// Prior families fixed here, numbers from the config (checked by nuts_multilevel.py).
// Names as bayes-vi's: alpha, beta[d], sd_g[1], r_g[group, 1].
data {
  int<lower=1> N;
  int<lower=1> D;
  matrix[N, D] X;
  int<lower=0, upper=1> y[N];
  int<lower=2> G_g;
  int<lower=1, upper=G_g> g[N];
  real alpha_loc;
  real<lower=0> alpha_scale;
  vector[D] beta_loc;
  vector<lower=0>[D] beta_scale;
  vector<lower=0>[1] sd_g_scale;      // half_normal
}
parameters {
  real alpha;
  vector[D] beta;
  vector<lower=0>[1] sd_g;
  matrix[G_g, 1] z_g;
}
transformed parameters {
  matrix[G_g, 1] r_g = sd_g[1] * z_g;
}
model {
  alpha ~ normal(alpha_loc, alpha_scale);
  beta ~ normal(beta_loc, beta_scale);
  sd_g ~ normal(0, sd_g_scale);
  to_vector(z_g) ~ std_normal();
  y ~ bernoulli_logit(alpha + X * beta + r_g[g, 1]);
}
