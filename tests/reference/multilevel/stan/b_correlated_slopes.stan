// b_correlated_slopes: normal likelihood, y ~ x + (1 + x | subj), correlated.
// Non-centred: r_subj[s] = diag(sd_subj) L_subj z_subj[s], z ~ N(0, I), L_subj ~ LKJ-Cholesky(eta),
// the same model as bayes-vi's r_subj[s] ~ MVN(0, diag(sd) L L' diag(sd)).
// Prior families fixed here, numbers from the config (checked by nuts_multilevel.py).
// Names as bayes-vi's: alpha, beta[d], sigma, sd_subj[k], cor_subj[2, 1] (the correlation; the
// runner drops the other entries of the matrix), r_subj[subject, k] (k = 1 intercept, 2 slope).
data {
  int<lower=1> N;
  int<lower=1> D;
  matrix[N, D] X;
  vector[N] y;
  int<lower=2> G_subj;
  int<lower=1, upper=G_subj> subj[N];
  vector[N] Z_subj;                    // the varying slope's column (x)
  real alpha_loc;
  real<lower=0> alpha_scale;
  vector[D] beta_loc;
  vector<lower=0>[D] beta_scale;
  real<lower=0> sigma_scale;          // half_normal
  vector<lower=0>[2] sd_subj_scale;   // half_normal
  real<lower=0> cor_subj_eta;         // lkj
}
parameters {
  real alpha;
  vector[D] beta;
  real<lower=0> sigma;
  vector<lower=0>[2] sd_subj;
  cholesky_factor_corr[2] L_subj;
  matrix[2, G_subj] z_subj;
}
transformed parameters {
  matrix[G_subj, 2] r_subj = (diag_pre_multiply(sd_subj, L_subj) * z_subj)';
}
model {
  alpha ~ normal(alpha_loc, alpha_scale);
  beta ~ normal(beta_loc, beta_scale);
  sigma ~ normal(0, sigma_scale);
  sd_subj ~ normal(0, sd_subj_scale);
  L_subj ~ lkj_corr_cholesky(cor_subj_eta);
  to_vector(z_subj) ~ std_normal();
  y ~ normal(alpha + X * beta + r_subj[subj, 1] + r_subj[subj, 2] .* Z_subj, sigma);
}
generated quantities {
  matrix[2, 2] cor_subj = multiply_lower_tri_self_transpose(L_subj);
}
