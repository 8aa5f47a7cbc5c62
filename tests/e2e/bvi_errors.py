"""Shared pieces of the error-contract tests (test_cli_errors, test_config_errors,
test_data_errors): a strict check of SPEC.md's "Errors" section, a small good config to break
in one place at a time, and a small good dataset.

The check is stricter than BinaryTestCase.assert_error: every run has a timeout (a hang fails
the test instead of stalling the suite), a signal is reported as a crash, and stderr must be
exactly one newline-terminated line, with no blank lines or warnings around it."""
import copy
import json
import subprocess

from bvi_test import BINARY, SEED_CSV, BinaryTestCase

# Seconds any single run may take. The slowest error case (a data error at line 5000 of a
# 6000-row file) takes well under a second; a hang is what this catches.
TIMEOUT = 30

# The seed dataset's parameters, in CmdStan's names, as eval's --params header wants them.
SEED_NAMES = ["alpha"] + ["beta.%d" % i for i in range(1, 11)]


def good_config(csv_path=SEED_CSV):
    """A config that fits in a few milliseconds: every section present, so each case can break
    exactly one key."""
    return {
        "data": {"csv": csv_path, "response": "y", "standardize": False},
        "model": {
            "likelihood": "bernoulli_logit",
            "intercept": True,
            "priors": {
                "beta": {"normal": {"loc": 0, "scale": 1}},
                "alpha": {"normal": {"loc": 0, "scale": 10}},
            },
        },
        "inference": {
            "algorithm": "meanfield",
            "draws_per_step": 16,
            "optimizer": {"name": "adam", "learning_rate": 0.1},
            "max_iterations": 20,
            "tol_rel_obj": None,
            "eval_elbo": 10,
            "elbo_samples": 50,
            "seed": 7,
            "output_draws": 100,
        },
    }


def params_text(names, rows=2):
    """A --params CSV giving every parameter in `names` the value 0.1 in each row."""
    return ",".join(names) + "\n" + "".join(",".join(["0.1"] * len(names)) + "\n" for _ in range(rows))


def edited(cfg, pointer, value=None, delete=False):
    """A deep copy of `cfg` with the value at JSON pointer `pointer` set (or deleted)."""
    out = copy.deepcopy(cfg)
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    node = out
    for p in parts[:-1]:
        node = node[int(p)] if isinstance(node, list) else node[p]
    last = parts[-1]
    if isinstance(node, list):
        last = int(last)
    if delete:
        del node[last]
    else:
        node[last] = value
    return out


class ErrorTestCase(BinaryTestCase):
    """BinaryTestCase with the strict error check."""

    def run_bvi(self, args, stdin=None, **kwargs):
        try:
            return subprocess.run([BINARY] + list(args), input=stdin, capture_output=True, text=True,
                                  errors="backslashreplace", timeout=TIMEOUT, **kwargs)
        except subprocess.TimeoutExpired:
            self.fail("bayes-vi %s did not finish within %d s (a hang)" % (" ".join(args), TIMEOUT))

    def assert_fails(self, proc, code, where, contains=None):
        """SPEC.md "Errors": exit `code`, stdout empty, stderr exactly one line
        'bayes-vi: error: WHERE: WHAT' with WHERE == `where` and a non-empty WHAT."""
        self.assertGreaterEqual(proc.returncode, 0, "killed by signal %d (a crash); stderr: %r"
                                % (-proc.returncode, proc.stderr))
        self.assertEqual(proc.returncode, code, "exit code; stderr: %r" % proc.stderr)
        self.assertEqual(proc.stdout, "", "stdout must be empty after an error")
        self.assertTrue(proc.stderr.endswith("\n") and proc.stderr.count("\n") == 1,
                        "stderr must be exactly one line, got %r" % proc.stderr)
        prefix = "bayes-vi: error: " + where + ": "
        self.assertTrue(proc.stderr.startswith(prefix), "expected %r at the start of %r" % (prefix, proc.stderr))
        self.assertGreater(len(proc.stderr.strip()), len(prefix.strip()), "the message says what is wrong")
        if contains is not None:
            self.assertIn(contains, proc.stderr)
        return proc.stderr

    def assert_ok(self, proc):
        self.assertEqual(proc.returncode, 0, "stderr: %r" % proc.stderr)
        self.assertNotIn("bayes-vi: error:", proc.stderr)
        return proc

    def write_json(self, cfg, name="config.json"):
        return self.write(name, json.dumps(cfg, indent=2))
