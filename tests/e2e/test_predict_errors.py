"""predict with a bad --fit folder, a summary or draws.csv that is damaged or belongs to another
model, and a --metrics file that cannot be written: SPEC.md's one line and exit code each time
(66 for what cannot be read, 65 for a damaged file at FILE[:LINE], 78 for a fit of another model,
73 for --metrics, checked before the work), and never a hang on a pipe."""
import json
import os
import shutil
import unittest

from bvi_errors import ErrorTestCase, good_config
from bvi_test import SEED_CSV

DATA, NO_INPUT, CANT_CREATE, CONFIG = 65, 66, 73, 78


class PredictErrors(ErrorTestCase):
    def setUp(self):
        super().setUp()
        self.cfg = self.write_json(good_config())
        self.fit = self.path("fit")
        self.assert_ok(self.run_bvi(["fit", self.cfg, "--quiet", "--output", self.fit]))
        with open(os.path.join(self.fit, "draws.csv")) as f:
            self.draws = f.read()
        with open(os.path.join(self.fit, "summary.json")) as f:
            self.summary = json.load(f)

    def predict(self, fit=None, extra=(), cfg=None):
        return self.run_bvi(["predict", cfg or self.cfg, "--fit", fit or self.fit] + list(extra))

    def damaged_fit(self, draws=None, summary=None):
        """A copy of the fit with draws.csv and/or summary.json replaced."""
        folder = self.path("damaged")
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(self.fit, folder)
        if draws is not None:
            with open(os.path.join(folder, "draws.csv"), "w") as f:
                f.write(draws)
        if summary is not None:
            with open(os.path.join(folder, "summary.json"), "w") as f:
                f.write(summary if isinstance(summary, str) else json.dumps(summary))
        return folder

    def test_the_fit_predicts(self):
        p = self.assert_ok(self.predict())
        self.assertEqual(len(p.stdout.splitlines()), 101)

    # A --fit folder that is not a fit.

    def test_a_fit_folder_that_does_not_exist(self):
        missing = self.path("nothing")
        self.assert_fails(self.predict(missing), NO_INPUT, os.path.join(missing, "summary.json"))

    def test_a_fit_folder_that_is_a_file(self):
        plain = self.write("plain", "x\n")
        self.assert_fails(self.predict(plain), NO_INPUT, os.path.join(plain, "summary.json"))

    def test_an_empty_fit_folder(self):
        os.mkdir(self.path("empty"))
        self.assert_fails(self.predict(self.path("empty")), NO_INPUT, os.path.join(self.path("empty"), "summary.json"))

    def test_a_fit_without_its_draws(self):
        folder = self.damaged_fit()
        os.remove(os.path.join(folder, "draws.csv"))
        self.assert_fails(self.predict(folder), NO_INPUT, os.path.join(folder, "draws.csv"), "--output")

    def test_draws_or_summary_that_are_folders_or_pipes(self):
        for name in ("draws.csv", "summary.json"):
            for kind in ("folder", "fifo"):
                with self.subTest(name=name, kind=kind):
                    folder = self.damaged_fit()
                    target = os.path.join(folder, name)
                    os.remove(target)
                    os.mkdir(target) if kind == "folder" else os.mkfifo(target)
                    self.assert_fails(self.predict(folder), NO_INPUT, target)

    # A damaged summary.json.

    def test_a_summary_that_is_not_json(self):
        for text in ("", "{", "not json", '{"data": '):
            with self.subTest(text=text):
                folder = self.damaged_fit(summary=text)
                self.assert_fails(self.predict(folder), DATA, os.path.join(folder, "summary.json"), "JSON")

    def test_a_summary_without_its_data_block(self):
        for edit in (lambda s: s.pop("data"), lambda s: s["data"].pop("features"),
                     lambda s: s["data"].update(features=[1, 2]), lambda s: s["data"].update(likelihood=None)):
            s = json.loads(json.dumps(self.summary))
            edit(s)
            folder = self.damaged_fit(summary=s)
            self.assert_fails(self.predict(folder), DATA, os.path.join(folder, "summary.json"), "summary")

    def test_a_summary_whose_standardization_cannot_be_applied(self):
        # Dividing by a zero, negative or missing scale would turn every prediction into nan. The
        # per-feature block (data.standardization) and the design's variables (data.design, which
        # predict applies) are each checked.
        n = len(self.summary["data"]["features"])
        for center, scale in (([0.0] * n, [0.0] * n), ([0.0] * n, [-1.0] * n), ([0.0] * n, [1.0] * (n - 1)),
                              ([0.0] * n, [None] * n), ([1e308] * n, [1e-308] * n)):
            for block in ("standardization", "design"):
                if block == "design" and len(scale) < n:
                    continue
                # New rows are standardized as the design says; the per-feature block is only
                # checked for numbers that cannot be a standardization, so finite ones that overflow
                # a feature matter in the design alone.
                if block == "standardization" and center[0] == 1e308:
                    continue
                with self.subTest(scale=scale, block=block):
                    s = json.loads(json.dumps(self.summary))
                    if block == "standardization":
                        s["data"]["standardization"] = {"center": center, "scale": scale}
                    else:
                        for j, v in enumerate(s["data"]["design"]["variables"]):
                            v.update(center=center[j], scale=scale[j])
                    folder = self.damaged_fit(summary=s)
                    self.assert_fails(self.predict(folder), DATA, os.path.join(folder, "summary.json"),
                                      "summary")

    # A summary of another model.

    def test_the_summary_of_another_likelihood(self):
        s = json.loads(json.dumps(self.summary))
        s["data"]["likelihood"] = "poisson_log"
        folder = self.damaged_fit(summary=s)
        self.assert_fails(self.predict(folder), CONFIG, "/model/likelihood", "poisson_log")

    def test_the_fit_of_another_model(self):
        # The same data without an intercept: other parameters.
        cfg = good_config()
        cfg["model"]["intercept"] = False
        del cfg["model"]["priors"]["alpha"]
        other = self.write_json(cfg, "other.json")
        self.assert_fails(self.predict(cfg=other), CONFIG, "/model", "parameters")
        # Draws of fewer parameters than the summary's features.
        lines = self.draws.splitlines()
        cut = "\n".join(",".join(l.split(",")[:-1]) if not l.startswith("#") else l for l in lines) + "\n"
        folder = self.damaged_fit(draws=cut)
        self.assert_fails(self.predict(folder), CONFIG, "/model")

    # A damaged draws.csv.

    def draws_line(self, k):
        """The physical line number (1-based) of the k-th data row of draws.csv (0: the mean)."""
        rows = [i for i, l in enumerate(self.draws.splitlines(), 1)
                if l and not l.startswith("#") and not l.startswith("lp__")]
        return rows[k]

    def test_truncated_draws(self):
        middle = self.draws.index("\n", len(self.draws) // 2)
        # Cut inside a line's last number (which still parses, with fewer digits), at the end of a
        # line, and inside a line.
        for cut, contains in ((self.draws[: middle - 3], "cut short"), (self.draws[: middle + 1], "cut short"),
                              (self.draws[: self.draws.index(",", middle + 1)], "")):
            with self.subTest(end=repr(cut[-10:])):
                folder = self.damaged_fit(draws=cut)
                where = os.path.join(folder, "draws.csv")
                if not cut.endswith("\n"):
                    where += ":%d" % (cut.count("\n") + 1)
                self.assert_fails(self.predict(folder), DATA, where, contains)

    def test_a_bad_number_in_the_draws(self):
        lines = self.draws.splitlines()
        line = self.draws_line(5)
        for bad in ("abc", "nan", "inf", "1e999", ""):
            with self.subTest(value=bad):
                fields = lines[line - 1].split(",")
                fields[4] = bad
                edited = lines[: line - 1] + [",".join(fields)] + lines[line:]
                folder = self.damaged_fit(draws="\n".join(edited) + "\n")
                self.assert_fails(self.predict(folder), DATA, "%s:%d" % (os.path.join(folder, "draws.csv"), line))

    def test_draws_that_are_not_draws(self):
        only_mean = "\n".join(self.draws.splitlines()[: self.draws_line(0)]) + "\n"
        # (name, text, the line the error names, or None for the file as a whole)
        for name, text, line in (("empty", "", None), ("comments only", "# nothing\n#\n", None),
                                 ("only the mean", only_mean, None), ("other header", "a,b,c,d\n1,2,3,4\n", 1),
                                 ("binary", "\x00\x01\x02\xff" * 50, 1)):
            with self.subTest(name=name):
                folder = self.damaged_fit(draws=text)
                where = os.path.join(folder, "draws.csv") + ("" if line is None else ":%d" % line)
                self.assert_fails(self.predict(folder), DATA, where)

    # --metrics.

    def test_metrics_in_a_folder_that_does_not_exist_fails_before_the_work(self):
        # New rows with a bad value on their last line: predicting them would fail with 65.
        with open(SEED_CSV) as f:
            lines = f.read().splitlines()
        lines[-1] = ",".join(lines[-1].split(",")[:-1] + ["oops"])
        bad = self.write("late_bad.csv", "\n".join(lines) + "\n")
        self.assert_fails(self.predict(extra=["--data", bad]), DATA, bad + ":101")
        metrics = self.path("no/such/dir/m.json")
        self.assert_fails(self.predict(extra=["--data", bad, "--metrics", metrics]), CANT_CREATE, metrics,
                          "does not exist")

    def test_metrics_that_is_a_folder_or_a_device(self):
        os.mkdir(self.path("m.json"))
        self.assert_fails(self.predict(extra=["--metrics", self.path("m.json")]), CANT_CREATE, self.path("m.json"),
                          "is a folder")
        self.assert_fails(self.predict(extra=["--metrics", "/dev/null"]), CANT_CREATE, "/dev/null")
        self.assert_fails(self.predict(extra=["--metrics", "/proc/m.json"]), CANT_CREATE, "/proc/m.json")

    def test_metrics_are_written(self):
        self.assert_ok(self.predict(extra=["--metrics", self.path("m.json")]))
        with open(self.path("m.json")) as f:
            self.assertIn("accuracy", json.load(f))


if __name__ == "__main__":
    unittest.main()
