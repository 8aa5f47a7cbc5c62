"""Default priors: a config with only the data, the response and the likelihood (or a formula)
fits; the defaults check --explain writes out are rstanarm's/brms's scales computed here from the
data with numpy (s_y = sd(y) for normal, 1 otherwise; s_x the sd of each design column); eval's
log joint with them matches a scipy reference in which the intercept's student_t prior sits on
the intercept at the column means (alpha + means . beta, brms's Intercept), and the ordinal
cutpoints' on the cutpoints at the column means (c_k - means . beta, brms's thresholds of the
centred predictors); and the explained config makes the same model."""
import json
import unittest

import numpy as np
from scipy import stats

import multilevel_models as mm
from bvi_test import BinaryTestCase, read_csv_rows, run
from ordinal_models import log_diff_cdf


class DefaultPriors(BinaryTestCase):
    def setUp(self):
        super().setUp()
        self.cols = mm.simulate("normal", 200, seed=21)
        self.csv = self.path("d.csv")
        mm.write_csv(self.csv, self.cols)

    def test_minimal_configs_fit(self):
        for cfg in ({"data": {"csv": self.csv, "response": "y", "features": ["x", "z"]},
                     "model": {"likelihood": "normal"}},
                    {"data": {"csv": self.csv}, "model": {"likelihood": "normal", "formula": "y ~ x + (1 | county)"}}):
            cfg["inference"] = {"max_iterations": 20, "output_draws": 20, "final_elbo_draws": 1000}
            p = run(["fit", self.write_config(cfg), "--quiet"])
            self.assertEqual(p.returncode, 0, p.stderr)

    def test_defaults_and_the_centered_intercept(self):
        cfg = {"data": {"csv": self.csv},
               "model": {"likelihood": "normal", "formula": "y ~ x * sex + (1 + x | county)"}}
        path = self.write_config(cfg)
        explain = run(["check", path, "--explain"])
        self.assertEqual(explain.returncode, 0, explain.stderr)
        priors = json.loads(explain.stdout)["model"]["priors"]
        y, x = self.cols["y"].astype(float), self.cols["x"].astype(float)
        male = (self.cols["sex"] == "male").astype(float)
        X = np.column_stack([x, male, x * male])
        sy = y.std(ddof=1)
        np.testing.assert_allclose(priors["beta"]["normal"]["scale"], 2.5 * sy / X.std(axis=0, ddof=1), rtol=1e-12)
        self.assertEqual(priors["beta"]["normal"]["loc"], 0)
        self.assertTrue(priors["alpha"]["centered"])
        self.assertEqual(priors["alpha"]["student_t"]["df"], 3)
        self.assertAlmostEqual(priors["alpha"]["student_t"]["loc"], y.mean(), delta=1e-12)
        self.assertAlmostEqual(priors["alpha"]["student_t"]["scale"], 2.5 * sy, delta=1e-12)
        self.assertAlmostEqual(priors["sigma"]["exponential"]["rate"], 1 / sy, delta=1e-12)
        self.assertEqual(priors["sd_county"]["half_student_t"]["df"], 3)
        self.assertAlmostEqual(priors["sd_county"]["half_student_t"]["scale"], 2.5 * sy, delta=1e-12)
        self.assertEqual(priors["cor_county"], {"lkj": {"eta": 1.0}})
        report = run(["check", path]).stdout
        self.assertIn("on the intercept at the feature means (centered) (default)", report)

        # eval with the defaults against scipy: the explicit-prior reference with its priors swapped.
        county = {c: i for i, c in enumerate(sorted(set(self.cols["county"])))}
        g = mm.Group("county", np.array([county[c] for c in self.cols["county"]]),
                     np.column_stack([np.ones(len(x)), x]), True)
        ref = mm.Reference("normal", {**self.cols, "y": y}, X, [g])
        rng = np.random.default_rng(2)
        points = [ref.random_point(rng) for _ in range(2)]
        p = run(["eval", path, "--params", "-"], stdin=mm.params_csv(ref.names(), points))
        self.assertEqual(p.returncode, 0, p.stderr)
        for row, pt in zip(read_csv_rows(p.stdout), points):
            beta = np.array([pt["beta.%d" % j] for j in (1, 2, 3)])
            sd = np.array([pt["sd_county.1"], pt["sd_county.2"]])
            explicit = (stats.norm.logpdf(beta, 0, ref.beta_scale).sum() + stats.norm.logpdf(pt["alpha"], 0, ref.alpha_scale)
                        + stats.halfnorm.logpdf(pt["sigma"], 0, ref.sigma_scale)
                        + stats.halfnorm.logpdf(sd, 0, ref.sd_scale).sum())
            defaults = (stats.norm.logpdf(beta, 0, 2.5 * sy / X.std(axis=0, ddof=1)).sum()
                        + stats.t.logpdf(pt["alpha"] + X.mean(axis=0) @ beta, 3, y.mean(), 2.5 * sy)
                        + stats.expon.logpdf(pt["sigma"], scale=sy)
                        + (np.log(2) + stats.t.logpdf(sd, 3, 0, 2.5 * sy)).sum())
            want = ref.log_joint(pt) - explicit + defaults
            self.assertAlmostEqual(float(row["log_joint"]), want, delta=1e-10 * abs(want))

        # The explained config is the same model.
        again = run(["eval", self.write_config(json.loads(explain.stdout), "explained.json"), "--params", "-"],
                    stdin=mm.params_csv(ref.names(), points))
        self.assertEqual(again.stdout, p.stdout)

    def ordinal_rows(self, centre=False):
        """1500 rows of ordinal_logit data on a raw scale (x1 near 30, x2 near 9), the features
        centred by the test when `centre`."""
        rng = np.random.default_rng(4)
        x = np.column_stack([rng.normal(30.0, 7.0, 1500), rng.normal(9.0, 3.0, 1500)])
        eta = (x - x.mean(axis=0)) @ np.array([0.1, -0.2])
        y = 1 + (eta[:, None] + rng.logistic(size=1500)[:, None] > np.array([-1.0, 0.2, 1.1])).sum(axis=1)
        if centre:
            x = x - x.mean(axis=0)
        path = self.path("ordinal_c.csv" if centre else "ordinal.csv")
        with open(path, "w") as f:
            f.write("x1,x2,y\n" + "".join("%r,%r,%d\n" % (a, b, c) for a, b, c in zip(x[:, 0], x[:, 1], y)))
        return path, x, y

    def test_ordinal_cutpoints_at_the_feature_means(self):
        csv, x, y = self.ordinal_rows()
        cfg = {"data": {"csv": csv, "response": "y", "features": ["x1", "x2"]}, "model": {"likelihood": "ordinal_logit"},
               "inference": {"seed": 3}}
        path = self.write_config(cfg)
        explain = run(["check", path, "--explain"])
        self.assertEqual(explain.returncode, 0, explain.stderr)
        priors = json.loads(explain.stdout)["model"]["priors"]
        self.assertEqual(priors["cutpoints"], {"centered": True, "student_t": {"df": 3.0, "loc": 0.0, "scale": 2.5}})
        self.assertIn("cutpoints ~ student_t(df=3, loc=0, scale=2.5) on the cutpoints at the feature means (centered) "
                      "(default)", run(["check", path]).stdout)

        # eval against scipy: the prior on c_k - means . beta (the ordered transform's Jacobian is not in eval's value).
        points = [(np.array([0.12, -0.18]), np.array([2.0, 3.1, 4.2])), (np.array([0.0, 0.3]), np.array([-1.0, 0.5, 0.6]))]
        text = "beta.1,beta.2,cutpoints.1,cutpoints.2,cutpoints.3\n" + "".join(
            ",".join(repr(float(v)) for v in np.concatenate([b, c])) + "\n" for b, c in points)

        def log_joint(b, c, centered=True):
            eta = x @ b
            cc = np.concatenate([[-np.inf], c, [np.inf]])
            shift = x.mean(axis=0) @ b if centered else 0.0
            return (log_diff_cdf("ordinal_logit", cc[y - 1] - eta, cc[y] - eta).sum()
                    + stats.norm.logpdf(b, 0, 2.5 / x.std(axis=0, ddof=1)).sum()
                    + stats.t.logpdf(c - shift, 3, 0, 2.5).sum())

        p = run(["eval", path, "--params", "-", "--grad"], stdin=text)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = read_csv_rows(p.stdout)
        for (b, c), row in zip(points, rows):
            want = log_joint(b, c)
            self.assertAlmostEqual(float(row["log_joint"]), want, delta=1e-10 * abs(want))
            theta = np.concatenate([b, c])
            for j, name in enumerate(["beta.1", "beta.2", "cutpoints.1", "cutpoints.2", "cutpoints.3"]):
                h = np.zeros(5)
                h[j] = 1e-6
                fd = (log_joint(*np.split(theta + h, [2])) - log_joint(*np.split(theta - h, [2]))) / 2e-6
                self.assertAlmostEqual(float(row["grad." + name]), fd, delta=1e-5 * max(1, abs(fd)))
        again = run(["eval", self.write_config(json.loads(explain.stdout), "explained.json"), "--params", "-", "--grad"],
                    stdin=text)
        self.assertEqual(again.stdout, p.stdout)

        # "centered": false puts it on the cutpoints themselves; anything but a boolean is refused.
        cfg["model"]["priors"] = {"cutpoints": {"student_t": {"df": 3, "loc": 0, "scale": 2.5}, "centered": False}}
        p = run(["eval", self.write_config(cfg, "uncentered.json"), "--params", "-"], stdin=text)
        self.assertEqual(p.returncode, 0, p.stderr)
        for (b, c), row in zip(points, read_csv_rows(p.stdout)):
            want = log_joint(b, c, centered=False)
            self.assertAlmostEqual(float(row["log_joint"]), want, delta=1e-10 * abs(want))
        cfg["model"]["priors"]["cutpoints"]["centered"] = "yes"
        self.assert_error(run(["check", self.write_config(cfg, "bad.json")]), 78,
                          where="/model/priors/cutpoints/centered", contains="expected true or false")

    def test_ordinal_fit_does_not_depend_on_where_the_features_are_centred(self):
        # With the cutpoints' prior at the feature means the model on x and on x - mean(x) is one
        # model (c_k moves by means . beta): the same coefficients. On the cutpoints themselves
        # the prior held raw cutpoints 1.2 (means . beta) above the centred ones and moved beta.1
        # by 0.09 sd here (the cutpoints by 0.12 sd on statsmodels' `fair` data).
        fits = []
        for centre in (False, True):
            csv, x, _ = self.ordinal_rows(centre)
            cfg = {"data": {"csv": csv, "response": "y", "features": ["x1", "x2"]},
                   "model": {"likelihood": "ordinal_logit"}, "inference": {"seed": 3}}
            p = run(["fit", self.write_config(cfg, "fit_%d.json" % centre), "--quiet"])
            self.assertEqual(p.returncode, 0, p.stderr)
            fits.append({q["name"]: q for q in json.loads(p.stdout)["parameters"]})
        raw, centred = fits
        for name in ("beta.1", "beta.2"):
            self.assertLess(abs(raw[name]["mean"] - centred[name]["mean"]), 0.01 * centred[name]["sd"], name)
            self.assertAlmostEqual(raw[name]["sd"] / centred[name]["sd"], 1.0, delta=0.01)

    def test_a_term_prior_overrides_beta_for_its_coefficients(self):
        cfg = {"data": {"csv": self.csv},
               "model": {"likelihood": "normal", "formula": "y ~ x + sex",
                         "priors": {"beta": {"normal": {"loc": 0, "scale": 1}},
                                    "beta[sex]": {"normal": {"loc": 1, "scale": [0.5]}},
                                    "alpha": {"normal": {"loc": 0, "scale": 5}},
                                    "sigma": {"half_normal": {"scale": 2}}}}}
        p = run(["eval", self.write_config(cfg), "--params", "-"], stdin="alpha,beta.1,beta.2,sigma\n0.1,0.2,0.3,1.2\n")
        self.assertEqual(p.returncode, 0, p.stderr)
        y, x = self.cols["y"].astype(float), self.cols["x"].astype(float)
        male = (self.cols["sex"] == "male").astype(float)
        want = (stats.norm.logpdf(y, 0.1 + 0.2 * x + 0.3 * male, 1.2).sum() + stats.norm.logpdf(0.2, 0, 1)
                + stats.norm.logpdf(0.3, 1, 0.5) + stats.norm.logpdf(0.1, 0, 5) + stats.halfnorm.logpdf(1.2, 0, 2))
        self.assertAlmostEqual(float(read_csv_rows(p.stdout)[0]["log_joint"]), want, delta=1e-10 * abs(want))
        # A term prior for no term, or with the wrong number of entries: 78 at the key.
        cfg["model"]["priors"]["beta[sex]"]["normal"]["scale"] = [0.5, 0.5]
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/model/priors/beta[sex]/normal/scale",
                          contains="the term 'sex' has 1 coefficients")
        del cfg["model"]["priors"]["beta[sex]"]
        cfg["model"]["priors"]["beta[z]"] = {"normal": {"loc": 0, "scale": 1}}
        self.assert_error(run(["check", self.write_config(cfg)]), 78, where="/model/priors/beta[z]",
                          contains="no term 'z'")


if __name__ == "__main__":
    unittest.main()
