"""The exact method resumed from a checkpoint ends exactly as the uninterrupted run: the same
draws.csv bytes and the same summary numbers (timing aside). Its state is q plus the optimizer's
own (the step length, the last direction, Anderson acceleration's history), all in the
checkpoint. Two runs that use all of it: meanfield on wide data (Anderson active for dozens of
iterations), fullrank on the hierarchical breast-cancer model (its step halves where the
fixed point oscillates), the structured family on a multilevel model (its ties to the sds) and the
sparse family (its precision on the model's pattern)."""
import json
import os
import unittest

from bvi_fit import RUN_KEYS
from bvi_test import SOURCE_DIR, BinaryTestCase, run


def without(doc, keys):
    return {k: v for k, v in doc.items() if k not in keys}


class ExactResume(BinaryTestCase):
    def resume_matches(self, cfg):
        whole_dir, resumed_dir, state = self.path("whole"), self.path("resumed"), self.path("run.ckpt")
        whole = run(["fit", cfg, "--quiet", "--output", whole_dir])
        self.assertEqual(whole.returncode, 0, whole.stderr)
        summary = json.loads(whole.stdout)
        self.assertTrue(summary["converged"])
        # Checkpoints every `every` iterations, the last of them well before the end; the run
        # leaves it behind, and must itself be the same run as without checkpoints.
        every = max(2, summary["iterations"] // 2 - 1)
        again = run(["fit", cfg, "--quiet", "--checkpoint", state, "--checkpoint-every", str(every)])
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(without(json.loads(again.stdout), RUN_KEYS), without(summary, RUN_KEYS))
        with open(state) as f:
            stopped_at = json.load(f)["iteration"]
        self.assertGreaterEqual(stopped_at, every)
        self.assertLess(stopped_at, summary["iterations"] - 1)
        resumed = run(["fit", cfg, "--quiet", "--output", resumed_dir, "--resume", state])
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        for name in ("draws.csv",):
            with open(os.path.join(whole_dir, name), "rb") as a, open(os.path.join(resumed_dir, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
        self.assertEqual(without(json.loads(resumed.stdout), RUN_KEYS), without(summary, RUN_KEYS))

    def test_meanfield_on_wide_data(self):
        csv = self.path("wide.csv")
        p = run(["simulate", "--rows", "120", "--features", "600", "--seed", "3", "--output", csv])
        self.assertEqual(p.returncode, 0, p.stderr)
        cfg = {"data": {"csv": csv, "response": "y"},
               "model": {"likelihood": "bernoulli_logit", "intercept": True,
                         "priors": {"alpha": {"normal": {"loc": 0, "scale": 5}},
                                    "beta": {"normal": {"loc": 0, "scale": 2.5}}}},
               "inference": {"algorithm": "meanfield", "output_draws": 200}}
        self.resume_matches(self.write_config(cfg))

    def test_fullrank_on_the_shrinkage_model(self):
        reference = os.path.join(SOURCE_DIR, "tests", "reference")
        with open(os.path.join(reference, "breast_cancer_shrinkage.json")) as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = os.path.join(reference, cfg["data"]["csv"])
        cfg["inference"] = {"algorithm": "fullrank", "output_draws": 200}
        self.resume_matches(self.write_config(cfg))

    def test_structured_on_a_multilevel_model(self):
        # The ties b are part of q and of Anderson's history: both must come back exactly.
        with open(os.path.join(SOURCE_DIR, "configs", "multilevel", "crossed_logistic.json")) as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = os.path.join(SOURCE_DIR, "configs", "multilevel", cfg["data"]["csv"])
        cfg["inference"] = {"algorithm": "structured", "output_draws": 200}
        self.resume_matches(self.write_config(cfg))

    def test_sparse_on_a_multilevel_model(self):
        # The precision on its pattern, the step length and the last direction.
        with open(os.path.join(SOURCE_DIR, "configs", "multilevel", "crossed_logistic.json")) as f:
            cfg = json.load(f)
        cfg["data"]["csv"] = os.path.join(SOURCE_DIR, "configs", "multilevel", cfg["data"]["csv"])
        cfg["inference"] = {"algorithm": "sparse", "output_draws": 200}
        self.resume_matches(self.write_config(cfg))


if __name__ == "__main__":
    unittest.main()
