"""The memory budget (cli/memory_check.hpp): a fit whose estimated peak exceeds what the process may
use stops before it loads anything, with exit 71 and one line that names the estimate, the limit
and the remedies; a fit within the limit runs; --skip-memory-check and BAYES_VI_SKIP_MEMORY_CHECK
bypass the check; check prints the estimate; and the estimate is within 25 % of the peak resident
set the kernel measures (ru_maxrss, a count of pages, not a time: it can be asserted).

Limits are set with prlimit --as (RLIMIT_AS), as a user or a batch system would. Sizes too slow
for CI run with BVI_SLOW_TESTS=1."""
import itertools
import json
import math
import os
import random
import re
import resource
import shutil
import subprocess
import tempfile
import unittest

from bvi_errors import ErrorTestCase
from bvi_test import BINARY, SOURCE_DIR

OS_ERROR, DATA = 71, 65
PRLIMIT = shutil.which("prlimit")
SLOW = os.environ.get("BVI_SLOW_TESTS") == "1"
ESTIMATE = re.compile(r"memory: about ([0-9.]+) (MB|GB) at peak")
PEAK = re.compile(r"memory: peak resident ([0-9.]+) (MB|GB) \(VmHWM\)")


def config(csv, dtype="float64", algorithm="meanfield", **inference):
    """The default method (exact) unless `inference` names another."""
    inf = {"algorithm": algorithm, "max_iterations": 3}
    inf.update(inference)
    return {"data": {"csv": csv, "response": "y", "dtype": dtype},
            "model": {"likelihood": "bernoulli_logit", "intercept": True,
                      "priors": {"beta": {"normal": {"loc": 0, "scale": 2.5}},
                                 "alpha": {"normal": {"loc": 0, "scale": 10}}}},
            "inference": inf}


def limited(args, address_space):
    """The command under an address-space limit of `address_space` bytes."""
    if PRLIMIT:
        return [PRLIMIT, "--as=%d" % address_space] + args
    return args  # run() applies it with setrlimit instead


def run_limited(args, address_space=None, env=None, timeout=600):
    full_env = dict(os.environ)
    full_env.pop("BAYES_VI_SKIP_MEMORY_CHECK", None)
    full_env.update(env or {})
    cmd = [BINARY] + args
    preexec = None
    if address_space is not None:
        cmd = limited(cmd, address_space)
        if not PRLIMIT:
            preexec = lambda: resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env, preexec_fn=preexec)


def peak_of(args):
    """(exit code, stderr, peak resident bytes, wait4's ru_maxrss in bytes) of one run of the binary.
    The peak is the VmHWM the fit logs at its end: ru_maxrss also counts the forked Python
    process the binary was exec'd from (Linux carries the old address space's peak over exec)."""
    p = subprocess.Popen([BINARY] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with p.stderr:
        err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, err, bytes_in(PEAK, err), usage.ru_maxrss * 1024.0


def bytes_in(pattern, stderr):
    m = pattern.search(stderr)
    if not m:
        raise AssertionError("no %r in the log: %r" % (pattern.pattern, stderr[-2000:]))
    return float(m.group(1)) * (1e9 if m.group(2) == "GB" else 1e6)


def estimate_in(stderr):
    return bytes_in(ESTIMATE, stderr)


def simulate(path, rows, features):
    p = subprocess.run([BINARY, "simulate", "--rows", str(rows), "--features", str(features), "--seed", "3",
                        "--output", path], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return path


class Budget(ErrorTestCase):
    @classmethod
    def setUpClass(cls):
        cls._data = tempfile.TemporaryDirectory()
        # 2 x 10^4 rows x 100 features: 16 MB of float64, an estimate of about 45 MB with one thread.
        cls.csv = simulate(os.path.join(cls._data.name, "d.csv"), 20000, 100)
        with open(cls.csv) as f:
            lines = f.read().splitlines()
        # The same with a bad value on the last line, which only loading finds (exit 65).
        lines[-1] = ",".join(lines[-1].split(",")[:-1] + ["oops"])
        cls.late_bad = os.path.join(cls._data.name, "late_bad.csv")
        with open(cls.late_bad, "w") as f:
            f.write("\n".join(lines) + "\n")

    @classmethod
    def tearDownClass(cls):
        cls._data.cleanup()

    def estimate(self, cfg):
        p = run_limited(["fit", cfg, "--threads", "1", "--log-level", "debug", "--output", self.path("probe")])
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        return estimate_in(p.stderr)

    def test_over_the_address_space_limit_stops_before_loading(self):
        good = self.write_json(config(self.csv), "good.json")
        estimate = self.estimate(good)
        self.assertGreater(estimate, 30e6)
        bad = self.write_json(config(self.late_bad), "bad.json")
        # Without a limit, loading finds the bad value.
        self.assert_fails(self.run_bvi(["fit", bad, "--threads", "1"]), DATA, self.late_bad + ":20001")
        # With a limit the estimate exceeds, the budget stops the run first.
        p = run_limited(["fit", bad, "--threads", "1", "--output", self.path("out")], address_space=int(estimate))
        line = self.assert_fails(p, OS_ERROR, "memory")
        for fragment in ("needs about", "RLIMIT_AS", "\"float32\"", "more MPI ranks", "output_draws",
                         "--skip-memory-check", "BAYES_VI_SKIP_MEMORY_CHECK=1"):
            self.assertIn(fragment, line)
        # The same estimate, but for what is resident before the run (measured: the program, its
        # libraries), which varies by a few hundred kB from run to run.
        needs = re.search(r"needs about ([0-9.]+) MB at its peak", line)
        self.assertIsNotNone(needs, line)
        self.assertAlmostEqual(float(needs.group(1)) * 1e6, estimate, delta=0.02 * estimate)
        # fullrank is a remedy only for a fullrank run.
        self.assertNotIn("meanfield", line)
        full = self.write_json(config(self.late_bad, algorithm="fullrank"), "full.json")
        p = run_limited(["fit", full, "--threads", "1"], address_space=int(estimate))
        self.assertIn("\"algorithm\": \"meanfield\"", self.assert_fails(p, OS_ERROR, "memory"))

    def test_within_the_limit_the_fit_runs(self):
        good = self.write_json(config(self.csv), "good.json")
        estimate = self.estimate(good)
        # The estimate, what is mapped beside it (libraries, a second thread's stack and tape), and
        # the estimate's own 25 %.
        limit = int(1.25 * estimate + 40e6)
        for threads in ("1", "2"):
            with self.subTest(threads=threads):
                p = run_limited(["fit", good, "--threads", threads, "--quiet", "--output", self.path("out")],
                                address_space=limit)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(json.loads(p.stdout)["iterations"], 3)

    def test_the_check_can_be_skipped(self):
        bad = self.write_json(config(self.late_bad), "bad.json")
        good = self.write_json(config(self.csv), "good.json")
        estimate = self.estimate(good)
        for how, args, env in (("flag", ["--skip-memory-check"], {}),
                               ("environment", [], {"BAYES_VI_SKIP_MEMORY_CHECK": "1"})):
            with self.subTest(how=how):
                p = run_limited(["fit", bad, "--threads", "1"] + args, address_space=int(estimate), env=env)
                # It goes on to the load: the bad value (65), or an allocation that really fails (71).
                self.assertIn(p.returncode, (DATA, OS_ERROR), p.stderr)
                self.assertNotIn("bayes-vi: error: memory: this fit needs", p.stderr)
                if p.returncode == DATA:
                    self.assertIn("running anyway, as asked", p.stderr)
        p = run_limited(["fit", bad, "--threads", "1"], address_space=int(estimate),
                        env={"BAYES_VI_SKIP_MEMORY_CHECK": "0"})
        self.assertEqual(p.returncode, OS_ERROR, p.stderr)

    def test_check_prints_the_estimate_and_the_limit(self):
        good = self.write_json(config(self.csv), "good.json")
        # On stderr: it depends on the machine and the launch, the report on stdout does not.
        p = run_limited(["check", good])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("memory", p.stdout)
        line = [l for l in p.stderr.splitlines() if "memory" in l]
        self.assertEqual(len(line), 1, p.stderr)
        self.assertRegex(line[0], r"^memory +fit would need about [0-9.]+ (MB|GB) at peak; "
                                  r"may use [0-9.]+ (MB|GB) under ")
        p = run_limited(["check", good], address_space=2 * 10**9)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("RLIMIT_AS (ulimit -v) of 2.00 GB", p.stderr)
        # A fit that needs more than check does (20000 output draws: 48 MB of them, which check
        # never draws), under an address space check works in and fit would not.
        big = self.write_json(config(self.csv, output_draws=20000), "big.json")
        p = run_limited(["check", big], address_space=60 * 10**6)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("too much: fit would stop with exit 71", p.stderr)


CGROUP_NUMBERS = itertools.count()


def memory_cgroup(test, limit):
    """A child of this process's memory cgroup limited to `limit` bytes (cgroup v1
    memory.limit_in_bytes or v2 memory.max), removed after the test; its cgroup.procs file, or None
    where cgroups cannot be made (not root, no delegation)."""
    if os.geteuid() != 0:
        return None
    with open("/proc/self/cgroup") as f:
        lines = [l.rstrip("\n").split(":", 2) for l in f if l.count(":") >= 2]
    candidates = []
    for hierarchy, controllers, path in lines:
        if "memory" in controllers.split(","):
            candidates.append(("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes"))
        if hierarchy == "0" and controllers == "":
            candidates.append(("/sys/fs/cgroup", path, "memory.max"))
    for mount, path, limit_file in candidates:
        parent = mount + path if os.path.isdir(mount + path) else mount
        child = os.path.join(parent, "bvi-test-%d-%d" % (os.getpid(), next(CGROUP_NUMBERS)))
        try:
            os.mkdir(child)
        except OSError:
            continue
        test.addCleanup(lambda c=child: os.path.isdir(c) and os.rmdir(c))
        try:
            with open(os.path.join(child, limit_file), "w") as f:
                f.write(str(limit))
        except OSError:
            continue
        return os.path.join(child, "cgroup.procs")
    return None


def in_cgroup(procs, args):
    """`args` run as a process moved into the cgroup first (its children, mpirun's ranks, follow)."""
    return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', procs] + args


class CgroupBudget(ErrorTestCase):
    """The cgroup limit a batch system sets, for real, where this process may make a cgroup."""

    @classmethod
    def setUpClass(cls):
        cls._data = tempfile.TemporaryDirectory()
        cls.csv = simulate(os.path.join(cls._data.name, "d.csv"), 20000, 100)

    @classmethod
    def tearDownClass(cls):
        cls._data.cleanup()

    def fit_in(self, procs, args, launcher=()):
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1")
        env.pop("BAYES_VI_SKIP_MEMORY_CHECK", None)
        return subprocess.run(in_cgroup(procs, list(launcher) + [BINARY, "fit"] + args), capture_output=True,
                              text=True, timeout=600, env=env)

    def test_over_and_within_the_cgroup_limit(self):
        cfg = self.write_json(config(self.csv))
        estimate = Budget.estimate(self, cfg)
        procs = memory_cgroup(self, int(0.8 * estimate))
        if procs is None:
            self.skipTest("cannot make a memory cgroup here")
        p = self.fit_in(procs, [cfg, "--threads", "1"])
        line = self.assert_fails(p, OS_ERROR, "memory")
        self.assertIn("under the cgroup limit /sys/fs/cgroup/", line)
        procs = memory_cgroup(self, int(1.5 * estimate + 30e6))
        self.assertEqual(self.fit_in(procs, [cfg, "--threads", "1", "--quiet"]).returncode, 0)

    @unittest.skipUnless(shutil.which("mpirun"), "mpirun not installed")
    def test_ranks_in_one_cgroup_share_its_limit(self):
        # Two ranks each need somewhat more than half of what one rank needs (each holds half the
        # rows; both hold the program, the reducer and the draws). Under a limit one rank's need
        # would fit, two ranks' together do not.
        cfg = self.write_json(config(self.csv))
        mpi = [shutil.which("mpirun"), "--oversubscribe", "-n", "2"]
        procs = memory_cgroup(self, 4 * 10**9)
        if procs is None:
            self.skipTest("cannot make a memory cgroup here")
        p = self.fit_in(procs, [cfg, "--threads", "1", "--log-level", "debug", "--output", self.path("o")], mpi)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        self.assertIn("shared with 1 other rank in the same cgroup", p.stderr)
        per_rank = estimate_in(p.stderr)
        procs = memory_cgroup(self, int(1.5 * per_rank))
        p = self.fit_in(procs, [cfg, "--threads", "1"], mpi)
        self.assertEqual(p.returncode, OS_ERROR, p.stderr[-2000:])
        ours = [l for l in p.stderr.splitlines() if l.startswith("bayes-vi:")]
        self.assertEqual(len(ours), 1, p.stderr)
        self.assertIn("rank 0 of this fit needs about", ours[0])
        self.assertIn("shared with 1 other rank in the same cgroup", ours[0])


def multilevel_csv(path, rows, numeric, groups, seed=5):
    """`rows` rows of y (0/1), x1..x<numeric> (numeric), region (five labels) and g (`groups`
    numeric IDs): a logistic model with a categorical predictor and a grouping factor."""
    rng = random.Random(seed)
    effect = [rng.gauss(0, 0.5) for _ in range(groups + 1)]
    regions = ["centre", "east", "north", "south", "west"]
    with open(path, "w") as f:
        f.write(",".join(["x%d" % (j + 1) for j in range(numeric)] + ["region", "g", "y"]) + "\n")
        for _ in range(rows):
            x = [round(rng.gauss(0, 1), 4) for _ in range(numeric)]
            g = rng.randint(1, groups)
            region = rng.choice(regions)
            eta = 0.3 * sum(x[:3]) + effect[g] + (0.2 if region == "north" else 0.0)
            y = 1 if rng.random() < 1 / (1 + math.exp(-eta)) else 0
            f.write(",".join(map(str, x)) + ",%s,%d,%d\n" % (region, g, y))
    return path


class EstimateAgainstPeak(ErrorTestCase):
    """The estimate against the peak resident set (VmHWM), within 25 %, for both methods of
    fitting (the exact default and monte_carlo), both families, both dtypes, and multilevel models
    (categorical columns, group indexes, group-level effects among the parameters)."""

    def check(self, cfg, label, threads="2"):
        path = self.write_json(cfg, "c.json")
        rc, err, peak, maxrss = peak_of(["fit", path, "--threads", threads, "--log-level", "debug",
                                         "--output", self.path("out")])
        self.assertEqual(rc, 0, err[-2000:])
        # The two kernel counts agree to 1 % and to half a megabyte (the log prints the peak in
        # tenths of a megabyte, and a 17 MB process's two counts were seen 1.05 % apart).
        self.assertGreaterEqual(maxrss, 0.99 * peak - 0.5e6, "the kernel's count agrees")
        estimate = estimate_in(err)
        print("%s: estimate %.1f MB, peak %.1f MB (%+.1f %%)" %
              (label, estimate / 1e6, peak / 1e6, 100 * (estimate / peak - 1)))
        self.assertLess(abs(estimate - peak), 0.25 * peak)

    def compare(self, rows, features, cases, threads="2"):
        csv = simulate(self.path("d.csv"), rows, features)
        for dtype, method, algorithm in cases:
            with self.subTest(rows=rows, features=features, dtype=dtype, method=method, algorithm=algorithm):
                self.check(config(csv, dtype, algorithm, method=method),
                           "%d x %d %s %s %s" % (rows, features, dtype, method, algorithm), threads)

    def test_100000_x_100(self):
        # Each method with each family, each dtype twice; with BVI_SLOW_TESTS=1 every combination.
        cases = [("float64", "exact", "meanfield"), ("float32", "exact", "fullrank"),
                 ("float32", "monte_carlo", "meanfield"), ("float64", "monte_carlo", "fullrank")]
        if SLOW:
            cases += [("float32", "exact", "meanfield"), ("float64", "exact", "fullrank"),
                      ("float64", "monte_carlo", "meanfield"), ("float32", "monte_carlo", "fullrank")]
        self.compare(100000, 100, cases)

    def test_multilevel(self):
        # 10^5 rows, 20 numeric predictors, a categorical one (its indicators make the design a
        # matrix of its own) and a grouping factor: with 1000 groups and a correlated varying slope
        # P = 2028 (meanfield; the output draws dominate), uncorrelated P = 2027 (the sparse
        # family), with 100 groups P = 126 (sparse; also fullrank, meanfield and the structured
        # family, each group effect tied to its sd).
        xs = " + ".join("x%d" % (j + 1) for j in range(20))
        many = multilevel_csv(self.path("many.csv"), 100000, 20, 1000)
        few = multilevel_csv(self.path("few.csv"), 100000, 20, 100)
        # Without BVI_SLOW_TESTS=1: each method and family once, float32 once.
        both, one = ("float64", "float32") if SLOW else ("float64",), ("float64",)
        few_fullrank = ("float64", "float32") if SLOW else ("float32",)
        cases = [(many, 1000, "y ~ %s + region + (1 + x1 | g)" % xs, {}, both),
                 (many, 1000, "y ~ %s + region + (1 + x1 | g)" % xs, {"method": "monte_carlo"}, one),
                 (many, 1000, "y ~ %s + region + (1 + x1 || g)" % xs, {}, one),
                 (few, 100, "y ~ %s + region + (1 | g)" % xs, {}, one),
                 (few, 100, "y ~ %s + region + (1 | g)" % xs, {"algorithm": "fullrank"}, few_fullrank),
                 (few, 100, "y ~ %s + region + (1 | g)" % xs, {"algorithm": "structured"}, one)]
        if SLOW:
            cases += [(few, 100, "y ~ %s + region + (1 | g)" % xs, {"algorithm": "meanfield"}, one),
                      (few, 100, "y ~ %s + region + (1 | g)" % xs, {"method": "monte_carlo"}, one)]
        for csv, groups, formula, inference, dtypes in cases:
            for dtype in dtypes:
                inf = dict(inference, max_iterations=3)
                with self.subTest(groups=groups, formula=formula[-12:], dtype=dtype, inference=inference):
                    self.check({"data": {"csv": csv, "dtype": dtype},
                                "model": {"likelihood": "bernoulli_logit", "formula": formula},
                                "inference": inf},
                               "multilevel %d groups %s %s %s" % (groups, formula[-12:], dtype, inference))

    def test_example_multilevel_configs(self):
        # The bundled examples (10^4 rows: mostly the program and the method's buffers), among them
        # correlated varying slopes with P = 406 (fullrank, the prior's sample averages).
        for name in ("varying_intercept", "varying_slopes", "crossed_logistic", "missing_values"):
            with self.subTest(config=name):
                with open(os.path.join(SOURCE_DIR, "configs", "multilevel", name + ".json")) as f:
                    cfg = json.load(f)
                cfg["data"]["csv"] = os.path.join(SOURCE_DIR, "configs", "multilevel", cfg["data"]["csv"])
                self.check(cfg, "configs/multilevel/%s.json" % name)

    @unittest.skipUnless(SLOW, "BVI_SLOW_TESTS=1: P = 1001, the P x P matrices of a fullrank step")
    def test_10000_x_1000(self):
        self.compare(10000, 1000, [("float64", "exact", "meanfield"), ("float64", "monte_carlo", "meanfield"),
                                   ("float32", "monte_carlo", "fullrank")])

    @unittest.skipUnless(SLOW, "BVI_SLOW_TESTS=1: 10^6 rows")
    def test_1000000_x_10(self):
        self.compare(1000000, 10, [("float64", "exact", "meanfield"), ("float32", "exact", "auto"),
                                   ("float64", "monte_carlo", "meanfield")])


if __name__ == "__main__":
    unittest.main()
