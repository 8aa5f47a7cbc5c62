"""SPEC.md "Errors" for bad configs: exit 78 and the JSON pointer of the offending key (or
FILE:LINE for JSON that does not parse), the same from fit, eval and check.

Each case breaks one key of a good config (bvi_errors.good_config). The config is checked
before anything else is opened, so every command must give the same one line."""
import json
import os
import unittest

from bvi_errors import SEED_NAMES, ErrorTestCase, edited, good_config, params_text
from bvi_test import SEED_CSV

CONFIG = 78
GOOD = good_config()
TEN = 10  # coefficients of the seed dataset


def priors_with(beta=None, alpha=None):
    p = {"beta": {"normal": {"loc": 0, "scale": 1}}, "alpha": {"normal": {"loc": 0, "scale": 10}}}
    if beta is not None:
        p["beta"] = beta
    if alpha is not None:
        p["alpha"] = alpha
    return p


def with_optimizer(opt):
    return edited(GOOD, "/inference/optimizer", opt)


# (test name, config, WHERE, a phrase the message must hold or None)
CASES = [
    # The document as a whole.
    ("top_level_array", [GOOD], "/", "expected an object"),
    ("top_level_string", "config", "/", "expected an object"),
    ("top_level_null", None, "/", "expected an object"),
    # Unknown keys, at every level, named by their own pointer.
    ("unknown_root_key", edited(GOOD, "/verbose", True), "/verbose", "unknown key"),
    ("unknown_root_key_with_slash", edited(GOOD, "/a~1b", 1), "/a~1b", "unknown key"),
    ("unknown_data_key", edited(GOOD, "/data/respnse", "y"), "/data/respnse", "did you mean 'response'"),
    ("unknown_model_key", edited(GOOD, "/model/prior", {}), "/model/prior", "did you mean 'priors'"),
    ("unknown_inference_key", edited(GOOD, "/inference/max_iter", 5), "/inference/max_iter", "unknown key"),
    ("unknown_optimizer_key", edited(GOOD, "/inference/optimizer/lr", 0.1), "/inference/optimizer/lr",
     "unknown key"),
    ("unknown_hyperparameter", edited(GOOD, "/model/priors/beta/normal/sd", 1),
     "/model/priors/beta/normal/sd", "unknown key"),
    ("unknown_alpha_hyperparameter", edited(GOOD, "/model/priors/alpha/normal/scal", 1),
     "/model/priors/alpha/normal/scal", "did you mean 'scale'"),
    # Wrong types.
    ("string_for_integer", edited(GOOD, "/inference/max_iterations", "100"), "/inference/max_iterations",
     "expected an integer, got a string"),
    ("string_for_number", edited(GOOD, "/model/priors/beta/normal/scale", "1"),
     "/model/priors/beta/normal/scale", "got a string"),
    ("number_for_bool", edited(GOOD, "/data/standardize", 1), "/data/standardize", "expected true or false"),
    ("string_for_bool", edited(GOOD, "/model/intercept", "true"), "/model/intercept", "expected true or false"),
    ("object_for_string", edited(GOOD, "/data/response", {"name": "y"}), "/data/response",
     "expected a string, got an object"),
    ("number_for_string", edited(GOOD, "/data/csv", 3), "/data/csv", "expected a string"),
    ("array_for_integer", edited(GOOD, "/inference/draws_per_step", [16]), "/inference/draws_per_step",
     "got an array"),
    ("null_for_integer", edited(GOOD, "/inference/output_draws", None), "/inference/output_draws",
     "got null"),
    ("bool_for_number", edited(GOOD, "/model/priors/beta/normal/loc", False), "/model/priors/beta/normal/loc",
     "got a boolean"),
    ("string_for_nullable_number", edited(GOOD, "/inference/tol_rel_obj", "0.01"), "/inference/tol_rel_obj",
     "expected a number"),
    ("string_for_features", edited(GOOD, "/data/features", "x1"), "/data/features", "expected an array"),
    ("number_in_features", edited(GOOD, "/data/features", ["x1", 2]), "/data/features/1", "expected a string"),
    ("array_for_data", edited(GOOD, "/data", [SEED_CSV]), "/data", "expected an object"),
    ("string_for_model", edited(GOOD, "/model", "logistic"), "/model", "expected an object"),
    ("null_for_inference", edited(GOOD, "/inference", None), "/inference", "expected an object"),
    ("array_for_priors", edited(GOOD, "/model/priors", []), "/model/priors", "expected an object"),
    ("string_for_optimizer", edited(GOOD, "/inference/optimizer", "adam"), "/inference/optimizer",
     "expected an object"),
    ("number_for_optimizer_name", edited(GOOD, "/inference/optimizer/name", 1), "/inference/optimizer/name",
     "expected a string"),
    ("string_in_hyper_array", edited(GOOD, "/model/priors/beta/normal/scale", [1] * 9 + ["1"]),
     "/model/priors/beta/normal/scale/9", "expected a number"),
    # Out of range, and integers that are not integers.
    ("negative_scale", edited(GOOD, "/model/priors/beta/normal/scale", -1), "/model/priors/beta/normal/scale",
     "must be > 0"),
    ("zero_scale", edited(GOOD, "/model/priors/alpha/normal/scale", 0), "/model/priors/alpha/normal/scale",
     "must be > 0"),
    ("negative_scale_in_array", edited(GOOD, "/model/priors/beta/normal/scale", [1, -1] + [1] * 8),
     "/model/priors/beta/normal/scale/1", "must be > 0"),
    ("draws_per_step_zero", edited(GOOD, "/inference/draws_per_step", 0), "/inference/draws_per_step", "0"),
    ("max_iterations_zero", edited(GOOD, "/inference/max_iterations", 0), "/inference/max_iterations", "0"),
    ("max_iterations_fraction", edited(GOOD, "/inference/max_iterations", 1.5), "/inference/max_iterations",
     "expected an integer, got 1.5"),
    ("draws_per_step_fraction", edited(GOOD, "/inference/draws_per_step", 16.25), "/inference/draws_per_step",
     "expected an integer"),
    ("tol_rel_obj_zero", edited(GOOD, "/inference/tol_rel_obj", 0), "/inference/tol_rel_obj", "must be > 0"),
    ("tol_rel_obj_negative", edited(GOOD, "/inference/tol_rel_obj", -0.01), "/inference/tol_rel_obj",
     "must be > 0"),
    ("learning_rate_zero", edited(GOOD, "/inference/optimizer/learning_rate", 0),
     "/inference/optimizer/learning_rate", "must be > 0"),
    ("sgd_learning_rate_negative", with_optimizer({"name": "sgd", "learning_rate": -0.1}),
     "/inference/optimizer/learning_rate", "must be > 0"),
    ("beta1_one", with_optimizer({"name": "adam", "beta1": 1}), "/inference/optimizer/beta1", "[0, 1)"),
    ("beta2_above_one", with_optimizer({"name": "adam", "beta2": 1.5}), "/inference/optimizer/beta2", "[0, 1)"),
    ("adam_epsilon_zero", with_optimizer({"name": "adam", "epsilon": 0}), "/inference/optimizer/epsilon", "> 0"),
    ("adam_decay_negative", with_optimizer({"name": "adam", "decay": -1}), "/inference/optimizer/decay", ">= 0"),
    ("adaptive_eta_zero", with_optimizer({"name": "adaptive", "eta": 0}), "/inference/optimizer/eta", "> 0"),
    ("adaptive_alpha_zero", with_optimizer({"name": "adaptive", "alpha": 0}), "/inference/optimizer/alpha",
     "(0, 1]"),
    ("adaptive_iterations_zero", with_optimizer({"name": "adaptive", "adapt_iterations": 0}),
     "/inference/optimizer/adapt_iterations", None),
    ("output_draws_negative", edited(GOOD, "/inference/output_draws", -1), "/inference/output_draws", "-1"),
    ("seed_negative", edited(GOOD, "/inference/seed", -1), "/inference/seed", None),
    ("seed_fraction", edited(GOOD, "/inference/seed", 0.5), "/inference/seed", "expected an integer"),
    ("eval_elbo_zero", edited(GOOD, "/inference/eval_elbo", 0), "/inference/eval_elbo", None),
    ("elbo_samples_zero", edited(GOOD, "/inference/elbo_samples", 0), "/inference/elbo_samples", None),
    ("final_elbo_draws_too_few", edited(GOOD, "/inference/final_elbo_draws", 10), "/inference/final_elbo_draws",
     "1000"),
    ("unknown_algorithm", edited(GOOD, "/inference/algorithm", "fullrnak"), "/inference/algorithm",
     "meanfield, fullrank"),
    ("unknown_likelihood", edited(GOOD, "/model/likelihood", "poisson"), "/model/likelihood", "bernoulli_logit"),
    ("unknown_dtype", edited(GOOD, "/data/dtype", "float16"), "/data/dtype", "float64"),
    ("empty_csv_path", edited(GOOD, "/data/csv", ""), "/data/csv", "must not be empty"),
    ("empty_response", edited(GOOD, "/data/response", ""), "/data/response", "must not be empty"),
    # Priors.
    ("unknown_prior_family", edited(GOOD, "/model/priors/beta", {"horseshoe": {"loc": 0, "scale": 1}}),
     "/model/priors/beta/horseshoe", "unknown distribution"),
    ("misspelt_prior_family", edited(GOOD, "/model/priors/beta", {"normla": {"loc": 0, "scale": 1}}),
     "/model/priors/beta/normla", "did you mean 'normal'"),
    ("prior_with_two_families",
     edited(GOOD, "/model/priors/beta", {"normal": {"loc": 0, "scale": 1}, "cauchy": {"loc": 0, "scale": 1}}),
     "/model/priors/beta", "one key"),
    ("prior_with_no_family", edited(GOOD, "/model/priors/beta", {}), "/model/priors/beta", "one key"),
    ("prior_is_a_number", edited(GOOD, "/model/priors/beta", 1), "/model/priors/beta", "one key"),
    ("prior_family_body_is_a_number", edited(GOOD, "/model/priors/beta", {"normal": 1}),
     "/model/priors/beta/normal", "expected an object"),
    ("missing_hyperparameter", edited(GOOD, "/model/priors/beta/normal/loc", delete=True),
     "/model/priors/beta/normal/loc", "missing required key"),
    ("alpha_without_intercept", edited(GOOD, "/model/intercept", False), "/model/priors/alpha", "intercept"),
    ("unknown_parameter", edited(GOOD, "/model/priors/gamma", {"normal": {"loc": 0, "scale": 1}}),
     "/model/priors/gamma", "no parameter 'gamma'"),
    ("misspelt_parameter", edited(GOOD, "/model/priors/betas", {"normal": {"loc": 0, "scale": 1}}),
     "/model/priors/betas", "did you mean 'beta'"),
    ("hyper_array_too_short", edited(GOOD, "/model/priors/beta/normal/loc", [0, 0, 0]),
     "/model/priors/beta/normal/loc", "has 3 entries"),
    ("hyper_array_too_long", edited(GOOD, "/model/priors/beta/normal/scale", [1] * (TEN + 1)),
     "/model/priors/beta/normal/scale", "has 11 entries"),
    ("hyper_array_for_intercept", edited(GOOD, "/model/priors/alpha/normal/scale", [1, 2]),
     "/model/priors/alpha/normal/scale", "has 2 entries"),
    ("hyper_array_empty", edited(GOOD, "/model/priors/beta/normal/loc", []), "/model/priors/beta/normal/loc",
     "empty"),
    ("hyper_array_nested", edited(GOOD, "/model/priors/beta/normal/loc", [[0]] * TEN),
     "/model/priors/beta/normal/loc/0", "expected a number"),
    # Missing required keys.
    ("missing_data", edited(GOOD, "/data", delete=True), "/data", "missing required key"),
    ("missing_model", edited(GOOD, "/model", delete=True), "/model", "missing required key"),
    ("missing_csv", edited(GOOD, "/data/csv", delete=True), "/data/csv", "missing required key"),
    ("missing_response", edited(GOOD, "/data/response", delete=True), "/data/response", "missing required key"),
    ("missing_likelihood", edited(GOOD, "/model/likelihood", delete=True), "/model/likelihood",
     "missing required key"),
    # Missing priors get the defaults (test_default_priors.py); a declared parameter's has none.
    ("missing_declared_prior", edited(GOOD, "/model/parameters", {"tau": {"constraint": "positive"}}),
     "/model/priors", "missing prior for 'tau'"),
    # Features.
    ("response_among_features", edited(GOOD, "/data/features", ["x1", "y", "x2"]), "/data/features/1",
     "response"),
    ("no_terms", edited(edited(edited(GOOD, "/data/features", []), "/model/intercept", False), "/model/priors/alpha",
                        delete=True), "/data/features", "no terms"),
    ("duplicate_features", edited(GOOD, "/data/features", ["x1", "x2", "x1"]), "/data/features/2",
     "listed twice"),
    ("empty_feature_name", edited(GOOD, "/data/features", ["x1", ""]), "/data/features/1", "must not be empty"),
    # Optimizers.
    ("unknown_optimizer", with_optimizer({"name": "rmsprop"}), "/inference/optimizer/name", "natural, adam, sgd, adaptive"),
    ("eta_under_adam", with_optimizer({"name": "adam", "eta": 1}), "/inference/optimizer/eta",
     "not a key of optimizer 'adam'; it belongs to 'adaptive'"),
    ("eta_under_default_optimizer", with_optimizer({"eta": 1}), "/inference/optimizer/eta", "the default"),
    ("beta1_under_sgd", with_optimizer({"name": "sgd", "beta1": 0.9}), "/inference/optimizer/beta1",
     "belongs to 'adam'"),
    ("learning_rate_under_adaptive", with_optimizer({"name": "adaptive", "learning_rate": 0.1}),
     "/inference/optimizer/learning_rate", "belongs to 'natural', 'adam', 'sgd'"),
    ("unknown_key_under_adaptive", with_optimizer({"name": "adaptive", "taus": 1}), "/inference/optimizer/taus",
     "did you mean 'tau'"),
]

# Numbers JSON can write but a double cannot hold. json.dumps cannot write them, so each goes
# in as text in place of a marker; the parser rejects them at FILE:LINE.
HUGE = [
    ("huge_scale", "/model/priors/beta/normal/scale", "1e400"),
    ("huge_negative_loc", "/model/priors/beta/normal/loc", "-1e400"),
    ("huge_max_iterations", "/inference/max_iterations", "1e400"),
    ("huge_exponent", "/inference/seed", "1e999999999999"),
]
# Numbers a double holds, but not as the integer asked for.
BIG_INTEGERS = [
    ("integer_beyond_2_to_the_53", "/inference/max_iterations", "100000000000000000000000", "expected an integer"),
    ("integer_beyond_uint64", "/inference/seed", "18446744073709551616", "expected an integer"),
    ("integer_just_beyond_2_to_the_53", "/inference/seed", "9007199254740993", None),
]


def with_number_text(pointer, number):
    """The good config, indented, with the text `number` at `pointer`, and the line it is on."""
    text = json.dumps(edited(GOOD, pointer, "@NUMBER@"), indent=2)
    line = text[:text.index('"@NUMBER@"')].count("\n") + 1
    return text.replace('"@NUMBER@"', number), line


class ConfigErrors(ErrorTestCase):
    def check_all_commands(self, config_path, where, contains):
        """fit, eval and check all stop on the config with the same line."""
        params = self.write("params.csv", params_text(SEED_NAMES))
        lines = set()
        for args in (["check", config_path],
                     ["check", config_path, "--explain"],
                     ["fit", config_path, "--output", self.path("out")],
                     ["eval", config_path, "--params", params]):
            with self.subTest(command=args[0]):
                lines.add(self.assert_fails(self.run_bvi(args), CONFIG, where, contains))
        self.assertEqual(len(lines), 1, "the same message from every command: %r" % lines)
        # (fit creates the --output folder before it reads the data, which some config checks
        # need, such as the length of a per-coefficient array; but it never writes into it.)
        self.assertEqual(os.listdir(self.path("out")) if os.path.exists(self.path("out")) else [], [])


def _make_case(cfg, where, contains, text=None):
    def test(self):
        path = self.write("config.json", text if text is not None else json.dumps(cfg, indent=2))
        self.check_all_commands(path, where, contains)
    return test


for _name, _cfg, _where, _contains in CASES:
    setattr(ConfigErrors, "test_" + _name, _make_case(_cfg, _where, _contains))
for _name, _pointer, _number, _contains in BIG_INTEGERS:
    setattr(ConfigErrors, "test_" + _name,
            _make_case(None, _pointer, _contains, with_number_text(_pointer, _number)[0]))


def _make_huge_case(pointer, number):
    def test(self):
        text, line = with_number_text(pointer, number)
        path = self.write("config.json", text)
        self.check_all_commands(path, "%s:%d" % (path, line), number + " is too large for a double")
    return test


for _name, _pointer, _number in HUGE:
    setattr(ConfigErrors, "test_" + _name, _make_huge_case(_pointer, _number))


class InvalidJson(ErrorTestCase):
    """JSON that does not parse: FILE:LINE of the offending character."""

    def expect_line(self, text, line, contains="invalid JSON", mode="w"):
        path = self.write("config.json", text, mode)
        for command in ("check", "fit"):
            with self.subTest(command=command):
                self.assert_fails(self.run_bvi([command, path]), CONFIG, "%s:%d" % (path, line), contains)

    # A multi-line document; line 3 is the "model" line, line 5 the closing brace.
    LINES = ['{',
             '  "data": %s,' % json.dumps(GOOD["data"]),
             '  "model": %s,' % json.dumps(GOOD["model"]),
             '  "inference": %s' % json.dumps(GOOD["inference"]),
             '}']

    def test_the_multi_line_document_is_good(self):
        self.assert_ok(self.run_bvi(["check", self.write("config.json", "\n".join(self.LINES) + "\n")]))

    def test_truncated(self):
        self.expect_line("\n".join(self.LINES[:3]), 3)

    def test_truncated_mid_string(self):
        self.expect_line("\n".join(self.LINES[:2]) + '\n  "mod', 3)

    def test_trailing_comma(self):
        self.expect_line("\n".join(self.LINES[:4]) + ",\n}\n", 5)

    def test_line_comment(self):
        lines = list(self.LINES)
        lines.insert(2, "  // the model")
        self.expect_line("\n".join(lines) + "\n", 3)

    def test_block_comment(self):
        self.expect_line("/* config */\n" + "\n".join(self.LINES) + "\n", 1)

    def test_empty_file(self):
        self.expect_line("", 1)

    def test_nan_literal(self):
        lines = list(self.LINES)
        lines[2] = lines[2].replace('"scale": 1}', '"scale": NaN}')
        self.expect_line("\n".join(lines) + "\n", 3)

    def test_infinity_literal(self):
        lines = list(self.LINES)
        lines[3] = lines[3].replace('"seed": 7', '"seed": Infinity')
        self.expect_line("\n".join(lines) + "\n", 4)

    def test_single_quotes(self):
        lines = list(self.LINES)
        lines[1] = lines[1].replace('"response": "y"', "'response': 'y'")
        self.expect_line("\n".join(lines) + "\n", 2)

    def test_text_after_the_document(self):
        self.expect_line("\n".join(self.LINES) + "\n{}\n", 6)

    def test_invalid_utf8_in_a_string(self):
        lines = list(self.LINES)
        lines[1] = lines[1].replace('"response": "y"', '"response": "\xff"')
        text = ("\n".join(lines) + "\n").encode("latin-1")
        path = self.write("config.json", text, "wb")
        p = self.run_bvi(["check", path])
        self.assertEqual(p.returncode, CONFIG, p.stderr)

    def test_crlf_lines_are_counted(self):
        self.expect_line("\r\n".join(self.LINES[:4]) + ",\r\n}\r\n", 5)

    def test_bom_is_fine(self):
        path = self.write("config.json", b"\xef\xbb\xbf" + ("\n".join(self.LINES) + "\n").encode(), "wb")
        self.assert_ok(self.run_bvi(["check", path]))


class ConfigValueChecks(ErrorTestCase):
    def test_seed_option_does_not_excuse_a_bad_config_seed(self):
        # The config is validated as written, before --seed overrides it.
        cfg = self.write_json(edited(GOOD, "/inference/seed", -1))
        self.assert_fails(self.run_bvi(["fit", cfg, "--seed", "5"]), CONFIG, "/inference/seed")

    def test_config_error_wins_over_a_missing_data_file(self):
        cfg = edited(edited(GOOD, "/data/csv", self.path("missing.csv")), "/inference/seed", -1)
        self.assert_fails(self.run_bvi(["check", self.write_json(cfg)]), CONFIG, "/inference/seed")

    def test_feature_not_in_the_data_is_a_data_error_at_the_header(self):
        cfg = edited(GOOD, "/data/features", ["x1", "x11"])
        self.assert_fails(self.run_bvi(["check", self.write_json(cfg)]), 65, SEED_CSV + ":1", "'x11'")

    def test_relative_csv_resolves_against_the_config_folder(self):
        # A wrong relative path names the resolved file, which is what the user has to find.
        cfg = edited(GOOD, "/data/csv", "nope/data.csv")
        path = self.write_json(cfg, "sub/config.json")
        self.assert_fails(self.run_bvi(["check", path]), 66, self.path("sub/nope/data.csv"))


if __name__ == "__main__":
    unittest.main()
