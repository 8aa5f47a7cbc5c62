"""A bayes-vi config and its data as the reference sees them (vi_optimum.py): the design matrix,
the response and extra columns, the parameter layout with its transforms, the prior terms.

Parameter order (bayes-vi's models/model.cpp, CmdStan names): alpha (with an intercept),
beta.1 .. beta.D, then the likelihood's own parameters (normal: sigma), then the declared
parameters of /model/parameters in name order (byte order, as the config parser's sorted JSON
object gives them). A vector parameter (size > 1 or "features") is named NAME.1 .. NAME.size; a
size-1 one is NAME. alpha and beta are always the first K coordinates, the ones the linear
predictor eta = X theta[:K] uses.

Transforms (README "Parameters, constraints and hierarchical priors", constrain.cpp):
"positive" -> x = exp(zeta); "unit_interval" -> x = expit(zeta); "lower" L -> x = L + exp(zeta);
"upper" U -> x = U - exp(zeta); both -> x = L + (U - L) expit(zeta). A positive-support prior
needs a parameter that cannot be negative (positive, unit_interval, lower >= 0), as bayes-vi.

Hyperparameters: numbers (a scalar or one per entry). A string is a product of parameter names
and numbers (hierarchical); the reference supports it only for `normal` with a numeric loc and a
scale naming parameters whose transform is exactly x = exp(zeta) ("positive", or lower 0), the
case where the expectation stays closed form (HierarchicalNormal). Anything else is a ConfigError.
"""

import csv
import hashlib
import json
import os

import numpy as np

from vi_priors import FAMILIES, POSITIVE_RANGE, ConfigError, Transform, start_value

LIKELIHOODS = ("bernoulli_logit", "bernoulli_probit", "binomial_logit", "poisson_log", "normal",
               "negative_binomial_log", "lognormal", "gamma_log", "beta_logit", "student_t")
# The likelihoods with a positive parameter of their own, sampled as its log: its name.
SCALE_PARAMETER = {"normal": "sigma", "negative_binomial_log": "phi", "lognormal": "sigma", "gamma_log": "shape",
                   "beta_logit": "phi", "student_t": "sigma"}
# A second positive parameter after it (student_t's degrees of freedom; NUTS only: the exact
# optimizer here has no student_t expectation).
SECOND_PARAMETER = {"student_t": "nu"}


class Block:
    """A named parameter: coordinates offset .. offset + size - 1."""

    def __init__(self, name, size, is_vector, labels, transform, positive_valued):
        self.name, self.size, self.is_vector, self.labels = name, size, is_vector, labels
        self.transform, self.positive_valued = transform, positive_valued
        self.offset = None

    def coords(self):
        return np.arange(self.offset, self.offset + self.size)

    def names(self):
        return ["%s.%d" % (self.name, i + 1) for i in range(self.size)] if self.is_vector else [self.name]


class FixedPrior:
    """Independent prior with numeric hyperparameters on every coordinate of a block."""

    def __init__(self, block, family, h):
        self.block, self.family, self.h = block, family, h    # h: dict name -> array (size)

    def describe(self):
        return "%s ~ %s(%s), %s" % (self.block.name, self.family.name, ", ".join(
            "%s=%s" % (k, _short(self.h[k])) for k in self.family.hypers), self.block.transform.describe())


class HierarchicalNormal:
    """x_j ~ Normal(loc_j, f * prod_k exp(zeta_k)) for the coordinates j of an unconstrained
    block; `loadings[j]` is {k: count} over the log-scale coordinates k in the product (a name
    given twice counts twice), so log scale_j = log f + U_j with U_j = sum_k count_k zeta_k."""

    def __init__(self, block, loc, factor, loadings, expression):
        self.block, self.loc, self.factor, self.loadings = block, loc, factor, loadings
        self.expression = expression

    def describe(self):
        return "%s ~ normal(loc=%s, scale=%r)" % (self.block.name, _short(self.loc), self.expression)


def _short(a):
    a = np.asarray(a)
    return "%g" % a[0] if np.all(a == a[0]) else "[%s]" % ", ".join("%g" % v for v in a)


class Model:
    """Everything vi_optimum needs. X: N x K design (intercept column first); blocks in order."""

    def __init__(self, likelihood, X, data, blocks, priors, features):
        self.likelihood = likelihood
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.X2 = self.X * self.X
        self.N, self.K = self.X.shape
        self.data = data                      # y, trials, offset (incl. log exposure)
        self.y = data["y"]
        self.blocks = blocks
        self.priors = priors
        off = 0
        for b in blocks:
            b.offset = off
            off += b.size
        self.P = off
        self.names = [n for b in blocks for n in b.names()]
        self.features = []
        for b in blocks:
            for i in range(b.size):
                self.features.append(b.labels[i] if b.labels else None)
        self.feature_columns = features
        # The coordinate of the likelihood's own positive parameter (normal's sigma, the negative
        # binomial's phi), whose unconstrained value u = log of it enters the likelihood.
        self.sigma_index = next((b.offset for b in blocks if b.name == SCALE_PARAMETER.get(likelihood)), None)
        self.transforms = [b.transform for b in blocks for _ in range(b.size)]

    def block(self, name):
        return next(b for b in self.blocks if b.name == name)

    def constrained_blocks(self):
        return [b for b in self.blocks if b.transform.kind != "none"]


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------

def read_csv(path):
    """Header + float matrix. Rejects ragged rows and non-finite values."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise ConfigError("%s: empty file" % path)
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    if data.shape[0] == 0:
        raise ConfigError("%s: no rows" % path)
    if data.shape[1] != len(header):
        raise ConfigError("%s: %d columns in header, %d in rows" % (path, len(header), data.shape[1]))
    if not np.all(np.isfinite(data)):
        raise ConfigError("%s: non-finite value" % path)
    return header, data


def _column(header, table, name, where, path):
    if name not in header:
        raise ConfigError("%s: column %r not in %s" % (where, name, path))
    return table[:, header.index(name)]


def _check_response(likelihood, y, trials, exposure, path):
    integer = np.all(y == np.round(y))
    if likelihood in ("bernoulli_logit", "bernoulli_probit"):
        if not np.all((y == 0) | (y == 1)):
            raise ConfigError("%s: response must be 0 or 1 for %s" % (path, likelihood))
    elif likelihood == "binomial_logit":
        if not (np.all(trials >= 0) and np.all(trials == np.round(trials))):
            raise ConfigError("%s: trials must be non-negative integers" % path)
        if not (integer and np.all(y >= 0) and np.all(y <= trials)):
            raise ConfigError("%s: response must be an integer in 0 .. trials" % path)
    elif likelihood in ("poisson_log", "negative_binomial_log"):
        if not (integer and np.all(y >= 0)):
            raise ConfigError("%s: response must be a non-negative integer" % path)
        if exposure is not None and not np.all(exposure > 0):
            raise ConfigError("%s: exposure must be positive" % path)
    elif likelihood in ("lognormal", "gamma_log"):
        if not np.all(y > 0):
            raise ConfigError("%s: response must be positive for %s" % (path, likelihood))
    elif likelihood == "beta_logit":
        if not np.all((y > 0) & (y < 1)):
            raise ConfigError("%s: response must be strictly between 0 and 1 for beta_logit" % path)


def _hyper_array(value, n, where, field):
    if isinstance(value, bool) or not isinstance(value, (int, float, list)):
        raise ConfigError("%s: must be a number or an array of numbers" % where)
    if isinstance(value, list):
        if len(value) not in (1, n) or any(isinstance(e, bool) or not isinstance(e, (int, float))
                                           for e in value):
            raise ConfigError("%s: array must hold 1 or %d numbers" % (where, n))
        arr = np.array(value, dtype=np.float64)
        arr = np.full(n, arr[0]) if arr.size == 1 else arr
    else:
        arr = np.full(n, float(value))
    if not np.all(np.isfinite(arr)):
        raise ConfigError("%s: must be finite" % where)
    if field in POSITIVE_RANGE and np.any(arr <= 0):
        raise ConfigError("%s: must be > 0" % where)
    return arr


def _parse_product(text, where):
    """'0.5 * tau * lambda' -> (0.5, ['tau', 'lambda'])."""
    factor, names = 1.0, []
    for tok in text.split("*"):
        tok = tok.strip()
        if not tok:
            raise ConfigError("%s: cannot parse %r" % (where, text))
        if tok[0].isalpha() or tok[0] == "_":
            names.append(tok)
        else:
            try:
                factor *= float(tok)
            except ValueError:
                raise ConfigError("%s: cannot parse %r" % (where, text))
    return factor, names


def _declared_block(name, body, features):
    where = "/model/parameters/" + name
    if not isinstance(body, dict):
        raise ConfigError(where + ": expected an object")
    unknown = set(body) - {"size", "constraint", "lower", "upper"}
    if unknown:
        raise ConfigError("%s: unknown key %s" % (where, sorted(unknown)[0]))
    size = body.get("size", 1)
    labels = None
    if size == "features":
        size, labels, is_vector = len(features), list(features), True
    elif isinstance(size, int) and not isinstance(size, bool) and size >= 1:
        is_vector = size > 1
    else:
        raise ConfigError(where + "/size: expected a positive integer or \"features\"")
    constraint = body.get("constraint", "none")
    lo, up = body.get("lower"), body.get("upper")
    if constraint != "none" and (lo is not None or up is not None):
        raise ConfigError(where + ": bounds go with constraint \"none\"")
    if constraint == "positive":
        return Block(name, size, is_vector, labels, Transform("lower", 0.0), True)
    if constraint == "unit_interval":
        return Block(name, size, is_vector, labels, Transform("interval", 0.0, 1.0), True)
    if constraint != "none":
        raise ConfigError(where + "/constraint: expected none, positive or unit_interval")
    if lo is not None and up is not None:
        if not lo < up:
            raise ConfigError(where + "/upper: must be greater than lower")
        return Block(name, size, is_vector, labels, Transform("interval", lo, up), lo >= 0)
    if lo is not None:
        return Block(name, size, is_vector, labels, Transform("lower", lo), lo >= 0)
    if up is not None:
        return Block(name, size, is_vector, labels, Transform("upper", 0.0, up), False)
    return Block(name, size, is_vector, labels, Transform(), False)


def _prior(block, spec, blocks_by_name):
    where = "/model/priors/" + block.name
    if not isinstance(spec, dict) or len(spec) != 1:
        raise ConfigError(where + ": expected an object with one key, the distribution")
    fname, hypers = next(iter(spec.items()))
    fam = FAMILIES.get(fname)
    if fam is None:
        raise ConfigError("%s/%s: unknown distribution" % (where, fname))
    if not isinstance(hypers, dict):
        raise ConfigError("%s/%s: expected an object" % (where, fname))
    extra = set(hypers) - set(fam.hypers)
    if extra:
        raise ConfigError("%s/%s/%s: unknown key" % (where, fname, sorted(extra)[0]))
    if fam.support == "positive" and not block.positive_valued:
        raise ConfigError("%s/%s: a %s prior is for a positive parameter, and %r is not one"
                          % (where, fname, fname, block.name))
    h, expr = {}, {}
    for k in fam.hypers:
        at = "%s/%s/%s" % (where, fname, k)
        if k not in hypers:
            raise ConfigError(at + ": missing")
        if isinstance(hypers[k], str):
            expr[k] = (at, hypers[k])
        else:
            h[k] = _hyper_array(hypers[k], block.size, at, k)
    if not expr:
        return FixedPrior(block, fam, h)
    # hierarchical: only normal(numeric loc, scale = product of log-transformed parameters)
    if fname != "normal" or set(expr) != {"scale"}:
        raise ConfigError("%s: the reference supports hierarchical hyperparameters only as "
                          "normal(loc = number, scale = \"product of positive parameters\")" % where)
    if block.transform.kind != "none":
        raise ConfigError("%s: a hierarchical normal prior needs an unconstrained parameter" % where)
    at, text = expr["scale"]
    factor, names = _parse_product(text, at)
    if not names or not factor > 0:
        raise ConfigError(at + ": expected a positive number times parameter names")
    loadings = [dict() for _ in range(block.size)]
    for n in names:
        ref = blocks_by_name.get(n)
        if ref is None:
            raise ConfigError("%s: no parameter %r" % (at, n))
        if n == block.name:
            raise ConfigError("%s: the prior of %r cannot depend on itself" % (at, n))
        if not (ref.transform.kind == "lower" and ref.transform.lo == 0.0):
            raise ConfigError("%s: %r must be a positive parameter (x = exp(zeta)); the reference "
                              "supports no other transform in a hierarchical scale" % (at, n))
        if ref.size not in (1, block.size):
            raise ConfigError("%s: %r has %d entries and %r has %d" % (at, n, ref.size, block.name,
                                                                      block.size))
        for j in range(block.size):
            k = ref.offset + (0 if ref.size == 1 else j)
            loadings[j][k] = loadings[j].get(k, 0) + 1
    return HierarchicalNormal(block, h["loc"], factor, loadings, text)


def load_model(config_path):
    with open(config_path) as f:
        cfg = json.load(f)
    if not isinstance(cfg, dict) or not isinstance(cfg.get("data"), dict) \
            or not isinstance(cfg.get("model"), dict):
        raise ConfigError("config must have objects 'data' and 'model'")
    data, model = cfg["data"], cfg["model"]
    likelihood = model.get("likelihood", "bernoulli_logit")
    if likelihood not in LIKELIHOODS:
        raise ConfigError("/model/likelihood: one of %s" % ", ".join(LIKELIHOODS))
    csv_path = data.get("csv")
    if not isinstance(csv_path, str):
        raise ConfigError("/data/csv: missing or not a string")
    if not os.path.isabs(csv_path):
        csv_path = os.path.join(os.path.dirname(os.path.abspath(config_path)), csv_path)
    response = data.get("response")
    if not isinstance(response, str):
        raise ConfigError("/data/response: missing or not a string")
    extras = {}
    for key, owner in (("trials", ("binomial_logit",)), ("offset", ("poisson_log", "negative_binomial_log")),
                       ("exposure", ("poisson_log", "negative_binomial_log"))):
        if data.get(key) is not None:
            if likelihood not in owner:
                raise ConfigError("/data/%s: only for %s" % (key, " or ".join(owner)))
            extras[key] = data[key]
    if likelihood == "binomial_logit" and "trials" not in extras:
        raise ConfigError("/data/trials: required by binomial_logit")
    header, table = read_csv(csv_path)
    with open(csv_path, "rb") as f:
        csv_sha256 = hashlib.sha256(f.read()).hexdigest()
    y = _column(header, table, response, "/data/response", csv_path)
    cols = {k: _column(header, table, v, "/data/" + k, csv_path) for k, v in extras.items()}
    features = data.get("features")
    if features is None:
        skip = {response, *extras.values()}
        features = [h for h in header if h not in skip]
    elif not isinstance(features, list) or not all(isinstance(h, str) for h in features):
        raise ConfigError("/data/features: must be an array of column names")
    X = np.empty((table.shape[0], len(features)))
    for j, h in enumerate(features):
        X[:, j] = _column(header, table, h, "/data/features", csv_path)
    _check_response(likelihood, y, cols.get("trials"), cols.get("exposure"), csv_path)
    if data.get("standardize", False):
        if X.shape[0] < 2:
            raise ConfigError("/data/standardize: needs at least 2 rows")
        sd = X.std(axis=0, ddof=1)
        if np.any(sd == 0):
            raise ConfigError("/data/standardize: constant feature %r" % features[int(np.argmin(sd))])
        X = (X - X.mean(axis=0)) / sd
    offset = np.zeros(table.shape[0])
    if "offset" in cols:
        offset += cols["offset"]
    if "exposure" in cols:
        offset += np.log(cols["exposure"])
    rows = {"y": y, "trials": cols.get("trials"), "offset": offset}

    intercept = model.get("intercept", False)
    if not isinstance(intercept, bool):
        raise ConfigError("/model/intercept: must be true or false")
    blocks = []
    if intercept:
        X = np.hstack([np.ones((X.shape[0], 1)), X])
        blocks.append(Block("alpha", 1, False, None, Transform(), False))
    blocks.append(Block("beta", len(features), True, list(features), Transform(), False))
    if likelihood in SCALE_PARAMETER:
        blocks.append(Block(SCALE_PARAMETER[likelihood], 1, False, None, Transform("lower", 0.0), True))
    if likelihood in SECOND_PARAMETER:
        blocks.append(Block(SECOND_PARAMETER[likelihood], 1, False, None, Transform("lower", 0.0), True))
    declared = model.get("parameters", {})
    if not isinstance(declared, dict):
        raise ConfigError("/model/parameters: expected an object")
    builtin = {b.name for b in blocks} | {"alpha", "beta"}
    for name in sorted(declared, key=lambda s: s.encode()):
        if name in builtin:
            raise ConfigError("/model/parameters/%s: already a parameter of the model" % name)
        blocks.append(_declared_block(name, declared[name], features))
    off = 0
    for b in blocks:
        b.offset = off
        off += b.size
    priors_cfg = model.get("priors")
    if not isinstance(priors_cfg, dict):
        raise ConfigError("/model/priors: missing (the reference requires explicit priors)")
    by_name = {b.name: b for b in blocks}
    for k in priors_cfg:
        if k not in by_name:
            raise ConfigError("/model/priors/%s: the model has no parameter %r" % (k, k))
    priors = []
    for b in blocks:
        if b.name not in priors_cfg:
            raise ConfigError("/model/priors: missing prior for %r" % b.name)
        priors.append(_prior(b, priors_cfg[b.name], by_name))
    model = Model(likelihood, X, rows, blocks, priors, list(features))
    model.csv_sha256 = csv_sha256
    return model


def start_point(model):
    """Unconstrained start m0: each prior's central value mapped through T^-1 (loc for the
    location families, the scale for the half families, 1/rate, shape/rate, exp(loc))."""
    m0 = np.zeros(model.P)
    for p in model.priors:
        idx = p.block.coords()
        if isinstance(p, FixedPrior):
            m0[idx] = start_value(p.family, p.block.transform, p.h)
        else:
            m0[idx] = p.loc
    return m0
