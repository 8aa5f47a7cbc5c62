"""bayes-vi simulate --likelihood: data for every likelihood that the matching example config
(configs/likelihoods/NAME.json, pointed at the simulated file) fits back, its posterior covering
each true value in the truth file (alpha, beta and sigma, phi or shape) within 4 posterior sd;
the same bytes for any --threads; and the command-line errors (64): an unknown likelihood names
the valid ones on one line, a parameter option for a likelihood without that parameter."""
import csv
import json
import os
import unittest

from bvi_errors import ErrorTestCase

USAGE = 64
SOURCE_DIR = os.environ.get("BVI_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
LIKELIHOODS = ["bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "negative_binomial_log",
               "normal", "lognormal", "gamma_log", "beta_logit"]
OWN = {"normal": ("sigma", "0.7"), "lognormal": ("sigma", "0.5"), "negative_binomial_log": ("phi", "3"),
       "gamma_log": ("shape", "4"), "beta_logit": ("phi", "15")}


def read_truth(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], {name: float(value) for name, value in rows[1:]}


class SimulateLikelihoods(ErrorTestCase):
    def simulate(self, likelihood, data, rows=1500, seed=3, *extra):
        args = ["simulate", "--rows", str(rows), "--features", "3", "--seed", str(seed), "--likelihood", likelihood,
                "--intercept", "0.3"]
        if likelihood in OWN:
            args += ["--" + OWN[likelihood][0], OWN[likelihood][1]]
        if likelihood == "binomial_logit":
            args += ["--trials", "8"]
        return self.assert_ok(self.run_bvi(args + ["--output", data] + list(extra)))

    def config(self, likelihood, data):
        with open(os.path.join(SOURCE_DIR, "configs", "likelihoods", likelihood + ".json")) as f:
            cfg = json.load(f)
        cfg["data"] = {"csv": data, "response": "y"}
        if likelihood == "binomial_logit":
            cfg["data"]["trials"] = "trials"
        return self.write_json(cfg)

    def test_each_fit_covers_the_truth(self):
        for i, likelihood in enumerate(LIKELIHOODS):
            with self.subTest(likelihood=likelihood):
                data = self.path(likelihood + ".csv")
                self.simulate(likelihood, data, 1500, 3 + i)
                header, truth = read_truth(self.path(likelihood + ".truth.csv"))
                self.assertEqual(header, ["name", "true_value"])
                expected = ["alpha", "beta.1", "beta.2", "beta.3"] + ([OWN[likelihood][0]] if likelihood in OWN else [])
                self.assertEqual(list(truth), expected)
                self.assertEqual(truth["alpha"], 0.3)  # float32(0.3), written as the shortest text
                if likelihood in OWN:
                    self.assertEqual(truth[OWN[likelihood][0]], float(OWN[likelihood][1]))
                with open(data) as f:
                    self.assertEqual(f.readline().strip(),
                                     "x1,x2,x3," + ("trials," if likelihood == "binomial_logit" else "") + "y")
                fit = self.assert_ok(self.run_bvi(["fit", self.config(likelihood, data), "--quiet", "--threads", "1"]))
                params = {p["name"]: p for p in json.loads(fit.stdout)["parameters"]}
                for name, value in truth.items():
                    p = params[name]
                    self.assertLess(abs(p["mean"] - value), 4 * p["sd"],
                                    "%s: posterior mean %.4f (sd %.4f), true %.4f" % (name, p["mean"], p["sd"], value))

    def test_the_same_bytes_for_any_thread_count(self):
        for likelihood in LIKELIHOODS:
            with self.subTest(likelihood=likelihood):
                outs = []
                for threads in ("1", "3"):
                    data = self.path("%s-%s.csv" % (likelihood, threads))
                    # 40000 rows x 3 features: several blocks of 10922 rows, the last one short.
                    self.simulate(likelihood, data, 40000, 5, "--threads", threads)
                    with open(data, "rb") as f:
                        outs.append(f.read())
                self.assertEqual(outs[0], outs[1])

    def test_bad_likelihood_options(self):
        base = ["simulate", "--rows", "10", "--features", "2", "--seed", "1"]
        line = self.assert_fails(self.run_bvi(base + ["--likelihood", "cauchy"]), USAGE, "command line",
                              "cauchy")
        line = line.strip()
        self.assertNotIn("\n", line)
        for name in LIKELIHOODS:
            self.assertIn(name, line)
        for extra, contains in ([["--likelihood", "poisson_log", "--sigma", "1"], "--sigma"],
                                [["--likelihood", "normal", "--phi", "2"], "--phi"],
                                [["--likelihood", "beta_logit", "--shape", "2"], "--shape"],
                                [["--trials", "5"], "--trials"],
                                [["--likelihood", "normal", "--sigma", "0"], "--sigma"],
                                [["--likelihood", "gamma_log", "--shape", "-1"], "--shape"],
                                [["--likelihood", "binomial_logit", "--trials", "0"], "--trials"],
                                [["--intercept", "abc"], "--intercept"],
                                [["--intercept", "nan"], "--intercept"],
                                [["--likelihood", "normal", "--sigma", "nan"], "--sigma"],
                                [["--likelihood", "normal", "--sigma", "inf"], "--sigma"],
                                [["--likelihood", "normal", "--nu", "3"], "--nu"],
                                [["--likelihood", "student_t", "--nu", "0"], "--nu"],
                                [["--likelihood", "student_t", "--phi", "2"], "--phi"]):
            with self.subTest(extra=extra):
                self.assert_fails(self.run_bvi(base + extra), USAGE, "command line", contains)
        self.assertEqual(os.listdir(self.tmp), [], "nothing written")

    def test_out_of_range_values_are_named_in_their_shortest_form(self):
        # Out of float32's range: the value as typed (its shortest text), not %f's 300 digits of
        # 1e300 or the 0.000000 it makes of 1e-300.
        base = ["simulate", "--rows", "10", "--features", "2", "--seed", "1"]
        for extra, said in ((["--likelihood", "normal", "--sigma", "1e300"], "--sigma 1e+300 is not a positive float32"),
                            (["--likelihood", "gamma_log", "--shape", "1e-300"],
                             "--shape 1e-300 is not a positive float32"),
                            (["--likelihood", "student_t", "--nu", "1e39"], "--nu 1e+39 is not a positive float32")):
            with self.subTest(extra=extra):
                self.assert_fails(self.run_bvi(base + extra), USAGE, "command line", said)


if __name__ == "__main__":
    unittest.main()
