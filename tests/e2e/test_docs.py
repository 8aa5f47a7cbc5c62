"""The documentation that must not drift from the binary: docs/config.md is generated from the
schema tables the validator uses (bayes-vi check --reference)."""
import os
import unittest

from bvi_test import SOURCE_DIR, run


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


if __name__ == "__main__":
    unittest.main()
