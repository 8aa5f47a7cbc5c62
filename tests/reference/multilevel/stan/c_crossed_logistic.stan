// c_crossed_logistic: bernoulli_logit, y ~ x1 + cat + (1 | a) + (1 | b) + (1 | c).
// X holds x1 and cat's treatment-coded indicators (reference: the first level in bayes-vi's
// order). Non-centred: r_F = sd_F * z_F, z_F ~ N(0, 1), for F = a, b, c.
// Prior families fixed here, numbers from the config (checked by nuts_multilevel.py).
// Names as bayes-vi's: alpha, beta[d], sd_a[1], sd_b[1], sd_c[1], r_a[group, 1], ...
data {
  int<lower=1> N;
  int<lower=1> D;
  matrix[N, D] X;
  int<lower=0, upper=1> y[N];
  int<lower=2> G_a;
  int<lower=1, upper=G_a> a[N];
  int<lower=2> G_b;
  int<lower=1, upper=G_b> b[N];
  int<lower=2> G_c;
  int<lower=1, upper=G_c> c[N];
  real alpha_loc;
  real<lower=0> alpha_scale;
  vector[D] beta_loc;
  vector<lower=0>[D] beta_scale;
  vector<lower=0>[1] sd_a_scale;      // half_normal
  vector<lower=0>[1] sd_b_scale;      // half_normal
  vector<lower=0>[1] sd_c_scale;      // half_normal
}
parameters {
  real alpha;
  vector[D] beta;
  vector<lower=0>[1] sd_a;
  vector<lower=0>[1] sd_b;
  vector<lower=0>[1] sd_c;
  matrix[G_a, 1] z_a;
  matrix[G_b, 1] z_b;
  matrix[G_c, 1] z_c;
}
transformed parameters {
  matrix[G_a, 1] r_a = sd_a[1] * z_a;
  matrix[G_b, 1] r_b = sd_b[1] * z_b;
  matrix[G_c, 1] r_c = sd_c[1] * z_c;
}
model {
  alpha ~ normal(alpha_loc, alpha_scale);
  beta ~ normal(beta_loc, beta_scale);
  sd_a ~ normal(0, sd_a_scale);
  sd_b ~ normal(0, sd_b_scale);
  sd_c ~ normal(0, sd_c_scale);
  to_vector(z_a) ~ std_normal();
  to_vector(z_b) ~ std_normal();
  to_vector(z_c) ~ std_normal();
  y ~ bernoulli_logit(alpha + X * beta + r_a[a, 1] + r_b[b, 1] + r_c[c, 1]);
}
