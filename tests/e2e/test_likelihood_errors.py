"""SPEC.md "Errors" for the likelihoods' own rules. A response (or trials, or exposure) that the
likelihood cannot take is bad data: exit 65 at FILE:LINE (the header is line 1), from check,
fit and eval alike. Extra columns given to the wrong likelihood, a missing trials column, or a
missing prior for sigma are bad configs: exit 78 at the JSON pointer."""
import unittest

import likelihood_models as lm
from bvi_errors import ErrorTestCase, params_text

DATA, CONFIG = 65, 78

GOOD_ROWS = {
    "bernoulli_probit": ("x1,y", ["0.5,1", "-0.3,0", "1.2,1", "0.1,0"]),
    "binomial_logit": ("x1,trials,y", ["0.5,4,1", "-0.3,3,0", "1.2,0,0", "0.1,7,7"]),
    "poisson_log": ("x1,offset,exposure,y", ["0.5,0.1,1.5,1", "-0.3,0,2,0", "1.2,-0.2,0.5,9", "0.1,0,1,3"]),
    "normal": ("x1,y", ["0.5,1.25", "-0.3,-7", "1.2,0", "0.1,1e5"]),
    "negative_binomial_log": ("x1,offset,exposure,y",
                              ["0.5,0.1,1.5,1", "-0.3,0,2,0", "1.2,-0.2,0.5,90", "0.1,0,1,3"]),
    "lognormal": ("x1,y", ["0.5,1.25", "-0.3,7", "1.2,1e-6", "0.1,1e5"]),
    "gamma_log": ("x1,y", ["0.5,1.25", "-0.3,7", "1.2,1e-6", "0.1,1e5"]),
    "beta_logit": ("x1,y", ["0.5,0.25", "-0.3,0.7", "1.2,1e-6", "0.1,0.999999"]),
}

# (name, likelihood, line 4 replaced by, message phrase)
CASES = [
    ("probit_response_two", "bernoulli_probit", "1.2,2", "0 or 1"),
    ("probit_response_negative", "bernoulli_probit", "1.2,-1", "0 or 1"),
    ("binomial_response_above_trials", "binomial_logit", "1.2,3,4", "more than the number of trials"),
    ("binomial_response_fraction", "binomial_logit", "1.2,3,1.5", "non-negative integer"),
    ("binomial_response_negative", "binomial_logit", "1.2,3,-1", "non-negative integer"),
    ("binomial_trials_fraction", "binomial_logit", "1.2,2.5,1", "'trials'"),
    ("binomial_trials_negative", "binomial_logit", "1.2,-2,0", "'trials'"),
    ("binomial_trials_nan", "binomial_logit", "1.2,nan,0", "'trials'"),
    ("poisson_response_negative", "poisson_log", "1.2,0,1,-3", "non-negative integer"),
    ("poisson_response_fraction", "poisson_log", "1.2,0,1,0.5", "non-negative integer"),
    ("poisson_exposure_zero", "poisson_log", "1.2,0,0,1", "exposure must be positive"),
    ("poisson_exposure_negative", "poisson_log", "1.2,0,-1,1", "exposure must be positive"),
    ("poisson_offset_inf", "poisson_log", "1.2,inf,1,1", "'offset'"),
    ("negbin_response_negative", "negative_binomial_log", "1.2,0,1,-3", "non-negative integer"),
    ("negbin_response_fraction", "negative_binomial_log", "1.2,0,1,2.5", "non-negative integer count for "
     "negative_binomial_log"),
    ("negbin_exposure_zero", "negative_binomial_log", "1.2,0,0,1", "exposure must be positive"),
    ("negbin_offset_inf", "negative_binomial_log", "1.2,inf,1,1", "'offset'"),
    ("lognormal_response_zero", "lognormal", "1.2,0", "response must be positive (> 0) for lognormal, got 0"),
    ("lognormal_response_negative", "lognormal", "1.2,-0.5", "response must be positive (> 0) for lognormal"),
    ("lognormal_response_inf", "lognormal", "1.2,inf", "non-finite"),
    ("gamma_response_zero", "gamma_log", "1.2,0", "response must be positive (> 0) for gamma_log, got 0"),
    ("gamma_response_negative_zero", "gamma_log", "1.2,-0.0", "response must be positive (> 0) for gamma_log"),
    ("gamma_response_negative", "gamma_log", "1.2,-3", "response must be positive (> 0) for gamma_log"),
    ("beta_response_one", "beta_logit", "1.2,1.0", "response must be strictly between 0 and 1 for beta_logit, got 1"),
    ("beta_response_zero", "beta_logit", "1.2,0.0", "response must be strictly between 0 and 1 for beta_logit, got 0"),
    ("beta_response_above_one", "beta_logit", "1.2,1.5", "strictly between 0 and 1"),
    ("beta_response_negative", "beta_logit", "1.2,-0.2", "strictly between 0 and 1"),
    ("normal_response_nan", "normal", "1.2,nan", "missing value 'nan'"),
    ("normal_response_inf", "normal", "1.2,-inf", "non-finite"),
]


def csv_text(likelihood, line4=None):
    header, rows = GOOD_ROWS[likelihood]
    rows = list(rows)
    if line4 is not None:
        rows[2] = line4
    return header + "\n" + "\n".join(rows) + "\n"


def config_for(likelihood, csv_path):
    return lm.config(likelihood, csv_path, ["x1"], inference={"max_iterations": 10, "draws_per_step": 8,
                                                             "elbo_samples": 50, "output_draws": 20})


class LikelihoodDataErrors(ErrorTestCase):
    def test_the_good_files_are_good(self):
        for lik in GOOD_ROWS:
            with self.subTest(likelihood=lik):
                cfg = self.write_json(config_for(lik, self.write(lik + ".csv", csv_text(lik))))
                self.assert_ok(self.run_bvi(["check", cfg]))
                self.assert_ok(self.run_bvi(["fit", cfg]))


def _make_data_case(likelihood, line4, contains):
    def test(self):
        data = self.write("data.csv", csv_text(likelihood, line4))
        cfg = self.write_json(config_for(likelihood, data))
        params = self.write("params.csv", params_text(lm.param_names(likelihood, 1)))
        lines = set()
        for args in (["check", cfg], ["fit", cfg], ["eval", cfg, "--params", params]):
            with self.subTest(command=args[0]):
                lines.add(self.assert_fails(self.run_bvi(args), DATA, data + ":4", contains))
        self.assertEqual(len(lines), 1, "the same message from every command: %r" % lines)
    return test


for _name, _lik, _line, _contains in CASES:
    setattr(LikelihoodDataErrors, "test_" + _name, _make_data_case(_lik, _line, _contains))


class LikelihoodConfigErrors(ErrorTestCase):
    def fails(self, likelihood, csv_likelihood, edit, pointer, contains):
        cfg = config_for(likelihood, self.write("data.csv", csv_text(csv_likelihood)))
        edit(cfg)
        self.assert_fails(self.run_bvi(["check", self.write_json(cfg)]), CONFIG, pointer, contains)

    def test_binomial_without_trials(self):
        self.fails("binomial_logit", "binomial_logit", lambda c: c["data"].pop("trials"), "/data/trials", "missing")

    def test_trials_for_poisson(self):
        self.fails("poisson_log", "poisson_log", lambda c: c["data"].update(trials="y"), "/data/trials",
                   "binomial_logit")

    def test_offset_for_bernoulli(self):
        self.fails("bernoulli_probit", "poisson_log", lambda c: c["data"].update(offset="offset"), "/data/offset",
                   "poisson_log")

    def test_exposure_for_normal(self):
        self.fails("normal", "poisson_log", lambda c: c["data"].update(exposure="exposure"), "/data/exposure",
                   "poisson_log")

    def test_offset_for_binomial(self):
        self.fails("binomial_logit", "binomial_logit", lambda c: c["data"].update(offset="x1"), "/data/offset", None)

    def test_normal_sigma_prior_must_fit_a_positive_parameter(self):
        # (Without one, sigma gets the default exponential(1 / sd(y)).)
        self.fails("normal", "normal", lambda c: c["model"]["priors"].update(sigma={"gamma": {"shape": -1, "rate": 1}}),
                   "/model/priors/sigma/gamma/shape", "must be > 0")

    def test_trials_for_negative_binomial(self):
        self.fails("negative_binomial_log", "negative_binomial_log", lambda c: c["data"].update(trials="y"),
                   "/data/trials", "binomial_logit")

    def test_phi_prior_must_fit_a_positive_parameter(self):
        # (Without one, phi gets brms's default gamma(0.01, 0.01).)
        self.fails("negative_binomial_log", "negative_binomial_log",
                   lambda c: c["model"]["priors"].update(phi={"normal": {"loc": 0, "scale": -1}}),
                   "/model/priors/phi/normal/scale", "must be > 0")

    def test_phi_prior_for_a_likelihood_without_phi(self):
        self.fails("poisson_log", "poisson_log",
                   lambda c: c["model"]["priors"].update(phi={"gamma": {"shape": 1, "rate": 1}}),
                   "/model/priors/phi", None)

    def test_shape_prior_must_fit_a_positive_parameter(self):
        # (Without one, gamma_log's shape gets brms's default gamma(0.01, 0.01).)
        self.fails("gamma_log", "gamma_log",
                   lambda c: c["model"]["priors"].update(shape={"normal": {"loc": 0, "scale": -1}}),
                   "/model/priors/shape/normal/scale", "must be > 0")

    def test_offset_for_student_t(self):
        # lognormal and gamma_log take an offset; student_t (like normal) does not.
        self.fails("student_t", "normal", lambda c: c["data"].update(offset="offset"), "/data/offset",
                   "only poisson_log, negative_binomial_log, lognormal, gamma_log does")

    def test_offset_column_for_lognormal_must_not_be_a_feature(self):
        self.fails("lognormal", "lognormal", lambda c: c["data"].update(offset="x1"), "/data/offset",
                   "already a feature")

    def test_unknown_likelihood_lists_the_known_ones(self):
        self.fails("normal", "normal", lambda c: c["model"].update(likelihood="gamma"), "/model/likelihood",
                   "poisson_log")

    def test_sigma_prior_for_a_likelihood_without_sigma(self):
        def edit(c):
            c["model"]["priors"]["sigma"] = {"normal": {"loc": 0, "scale": 1}}
        self.fails("bernoulli_probit", "bernoulli_probit", edit, "/model/priors/sigma", None)


if __name__ == "__main__":
    unittest.main()
