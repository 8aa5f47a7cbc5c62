"""The documentation that must not drift from the binary: docs/config.md is generated from the
schema tables the validator uses (bayes-vi check --reference), and the README's walk-through on a
user's own data runs as written."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from bvi_test import BINARY, DATA_DIR, SOURCE_DIR, run


class ConfigReference(unittest.TestCase):
    def test_docs_config_md_is_current(self):
        p = run(["check", "--reference"])
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(SOURCE_DIR, "docs", "config.md")) as f:
            self.assertEqual(f.read(), p.stdout,
                             "docs/config.md is stale: regenerate it with "
                             "`build/bayes-vi check --reference > docs/config.md`")

    def test_every_inference_key_is_documented(self):
        text = run(["check", "--reference"]).stdout
        for key in ["draws_per_step", "optimizer", "max_iterations", "tol_rel_obj", "eval_elbo",
                    "elbo_samples", "final_elbo_draws", "seed", "output_draws", "half_life"]:
            self.assertIn("| `%s` |" % key, text)

    def test_reference_takes_no_config(self):
        p = run(["check", "--reference", os.path.join(SOURCE_DIR, "configs", "seed_eval.json")])
        self.assertEqual(p.returncode, 64)


class ReadmeWalkthrough(unittest.TestCase):
    def test_your_own_data_runs_as_written(self):
        # The first sh block of "## Your own data", run by bash in a folder holding a CSV with the
        # columns it names (the bundled normal-likelihood data), with the binary on PATH.
        with open(os.path.join(SOURCE_DIR, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        section = readme.split("\n## Your own data\n", 1)[1].split("\n## ", 1)[0]
        script = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(os.path.join(DATA_DIR, "lik_normal.csv"), os.path.join(d, "mydata.csv"))
            env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(BINARY)) + os.pathsep + os.environ["PATH"])
            p = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=d, env=env, capture_output=True,
                               text=True, timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr[-2000:])
            for made in ["fit1/draws.csv", "fit2/summary.json", "predictions.csv", "metrics1.json"]:
                self.assertTrue(os.path.exists(os.path.join(d, made)), made)
            self.assertRegex(p.stdout, r"(?m)^fit2 .*\n^fit1 ")  # compare's table, the better model first


if __name__ == "__main__":
    unittest.main()
