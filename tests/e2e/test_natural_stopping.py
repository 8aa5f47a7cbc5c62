"""The natural optimizer's stopping rule (/inference/tol_step): on large data, where the posterior
is near Gaussian and fullrank's regression curvature near exact, a default Monte Carlo fit stops
well before its 200 iterations and lands within 0.05 posterior sd of the same fit run for the
whole 200 (max_iterations given, which turns the rule off: the run of before); a small, noisy fit
keeps running. The rule's state survives a checkpoint bit for bit, threads and ranks give the same
bits, check --explain's resolved config fits the same, and bad values are refused (exit 78)."""
import json
import os
import re
import shutil
import subprocess
import unittest

from bvi_fit import RUN_KEYS
from bvi_test import BINARY, BinaryTestCase, run

MPIRUN = shutil.which("mpirun")


def without(doc, keys):
    return {k: v for k, v in doc.items() if k not in keys}


class NaturalStopping(BinaryTestCase):
    def simulate(self, likelihood, rows, features, name, *extra):
        return self.simulate_csv(likelihood, rows, features, name, 19, *extra)

    def config(self, csv, likelihood, inference=None, name="c.json"):
        priors = {"beta": {"normal": {"loc": 0, "scale": 10}}}
        if likelihood.startswith("ordinal"):
            priors["cutpoints"] = {"normal": {"loc": 0, "scale": 10}}
        cfg = {"data": {"csv": csv, "response": "y"},
               "model": {"likelihood": likelihood, "intercept": likelihood == "student_t", "priors": priors},
               "inference": dict({"seed": 7, "output_draws": 100}, **(inference or {}))}
        return self.write_config(cfg, name)

    def fit(self, cfg, *args):
        p = run(["fit", cfg, "--quiet", "--threads", "1"] + list(args), timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def stops_early_at_the_fixed_runs_answer(self, likelihood, csv, most):
        auto = self.fit(self.config(csv, likelihood))
        self.assertEqual((auto["method"], auto["algorithm"]), ("monte_carlo", "fullrank"))
        self.assertEqual(auto["tol_step"], 0.05)
        self.assertTrue(auto["converged"], auto["convergence"])
        # At least the rule's window of 10 (more when q starts at the posterior mode, init: mode,
        # and is quiet from its first step on).
        quiet = re.match(r"q stopped moving: (\d+) consecutive natural steps", auto["convergence"])
        self.assertTrue(quiet and int(quiet.group(1)) >= 10, auto["convergence"])
        self.assertLessEqual(auto["iterations"], most)
        fixed = self.fit(self.config(csv, likelihood, {"max_iterations": 200}, "fixed.json"))
        self.assertIsNone(fixed["tol_step"])
        self.assertEqual((fixed["iterations"], fixed["converged"], fixed["convergence"]), (200, False, None))
        b = {q["name"]: q for q in fixed["parameters"]}
        worst_mean = worst_sd = 0.0
        for q in auto["parameters"]:
            r = b[q["name"]]
            worst_mean = max(worst_mean, abs(q["mean"] - r["mean"]) / r["sd"])
            worst_sd = max(worst_sd, abs(q["sd"] / r["sd"] - 1))
        self.assertLessEqual(worst_mean, 0.05, (likelihood, auto["iterations"]))
        self.assertLessEqual(worst_sd, 0.05, (likelihood, auto["iterations"]))
        return auto

    def test_a_large_ordinal_fit_stops_early_at_the_same_answer(self):
        csv = self.simulate("ordinal_logit", 20000, 5, "ordinal", "--levels", "4")
        self.stops_early_at_the_fixed_runs_answer("ordinal_logit", csv, 60)

    def test_a_large_student_t_fit_stops_early_at_the_same_answer(self):
        csv = self.simulate("student_t", 20000, 5, "student")
        self.stops_early_at_the_fixed_runs_answer("student_t", csv, 60)

    def test_a_small_noisy_fit_runs_to_max_iterations(self):
        # 100 rows, nu's posterior far from Gaussian: each step's noise is above tol_step / 3.
        csv = self.simulate("student_t", 100, 3, "small")
        s = self.fit(self.config(csv, "student_t"))
        self.assertEqual((s["iterations"], s["converged"]), (200, False))
        self.assertTrue(s["convergence"].startswith("ran to max_iterations (200)"), s["convergence"])

    def test_resume_threads_ranks_and_the_explained_config_give_the_same_bits(self):
        csv = self.simulate("ordinal_logit", 5000, 3, "resume", "--levels", "4")
        cfg = self.config(csv, "ordinal_logit")
        whole = self.fit(cfg, "--output", self.path("whole"))
        self.assertTrue(whole["converged"], whole["convergence"])
        n = whole["iterations"]
        self.assertLess(n, 200)
        # The last checkpoint three steps before the end: inside the window of quiet steps.
        state = self.path("run.ckpt")
        again = self.fit(cfg, "--checkpoint", state, "--checkpoint-every", str(n - 3))
        self.assertEqual(without(again, RUN_KEYS), without(whole, RUN_KEYS))
        with open(state) as f:
            ck = json.load(f)
        self.assertEqual(ck["iteration"], n - 3)
        resumed = self.fit(cfg, "--resume", state, "--output", self.path("resumed"))
        self.assertEqual(without(resumed, RUN_KEYS), without(whole, RUN_KEYS))
        with open(os.path.join(self.path("whole"), "draws.csv"), "rb") as a, \
                open(os.path.join(self.path("resumed"), "draws.csv"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        two = json.loads(run(["fit", cfg, "--quiet", "--threads", "2"]).stdout)
        self.assertEqual(without(two, RUN_KEYS), without(whole, RUN_KEYS))
        if MPIRUN:
            p = subprocess.run([MPIRUN, "--oversubscribe", "-n", "2", BINARY, "fit", cfg, "--quiet", "--threads", "1"],
                               capture_output=True, text=True, timeout=600)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(without(json.loads(p.stdout), RUN_KEYS + ("ranks",)),
                             without(whole, RUN_KEYS + ("ranks",)))
        explain = run(["check", cfg, "--explain"])
        self.assertEqual(explain.returncode, 0, explain.stderr)
        resolved = json.loads(explain.stdout)
        self.assertEqual((resolved["inference"]["tol_step"], resolved["inference"]["max_iterations"]), (0.05, 200))
        explained = self.fit(self.write_config(resolved, "explained.json"))
        reasons = ("method_choice", "algorithm_choice")
        for s in (explained, whole):
            s["data"].pop("config")  # each names its own config file
        self.assertEqual(without(explained, RUN_KEYS + reasons), without(whole, RUN_KEYS + reasons))

    def test_settings_that_turn_it_off_or_on(self):
        csv = self.simulate("ordinal_logit", 5000, 3, "onoff", "--levels", "4")
        for inference, want in (({"tol_rel_obj": 0.001}, None), ({"tol_step": None}, None),
                                ({"max_iterations": 150, "tol_step": 0.05}, 0.05)):
            with self.subTest(inference=inference):
                explain = run(["check", self.config(csv, "ordinal_logit", inference), "--explain"])
                self.assertEqual(explain.returncode, 0, explain.stderr)
                self.assertEqual(json.loads(explain.stdout)["inference"]["tol_step"], want)

    def test_bad_values_are_refused(self):
        csv = self.simulate("ordinal_logit", 200, 2, "bad", "--levels", "3")
        for value in (0, -0.1, 1.5, "0.05", True):
            with self.subTest(value=value):
                p = run(["check", self.config(csv, "ordinal_logit", {"tol_step": value})])
                self.assert_error(p, 78, where=None)
                self.assertIn("/inference/tol_step", p.stderr)
        p = run(["check", self.config(csv, "ordinal_logit", {"tol_step": 0.05, "optimizer": {"name": "adam"}})])
        self.assert_error(p, 78, contains="only the natural optimizer")
        self.assertIn("/inference/tol_step", p.stderr)
        # The exact method (bernoulli_logit's default) has its own rule.
        logistic = self.simulate("bernoulli_logit", 200, 2, "logistic")
        cfg = {"data": {"csv": logistic, "response": "y"}, "model": {"likelihood": "bernoulli_logit"},
               "inference": {"tol_step": 0.05}}
        p = run(["check", self.write_config(cfg, "exact.json")])
        self.assert_error(p, 78, contains="the exact method stops on tol_grad")


if __name__ == "__main__":
    unittest.main()
