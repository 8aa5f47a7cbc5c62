"""Reference values for the ordinal likelihoods' kernel (inference/ad/ops/ordinal_kernel.hpp):
l(a, b) = log(F(b) - F(a)) and its partials dl/da = -f(a) / (F(b) - F(a)), dl/db = f(b) / (F(b) - F(a))
for F = expit (logit) and F = Phi (probit), computed with mpmath at 60 digits, independently of
the code under test. Printed as C++ rows for tests/unit/ad/test_ordinal_lpmf.cpp:
    {link (0 logit, 1 probit), a, b, l, dl/da, dl/db}
Run: /usr/bin/python3 tests/reference/ordinal_table.py
"""
import mpmath as mp

mp.mp.dps = 60
INF = mp.inf


def F(link, x):
    if x == INF:
        return mp.mpf(1)
    if x == -INF:
        return mp.mpf(0)
    return 1 / (1 + mp.exp(-x)) if link == 0 else mp.ncdf(x)


def f(link, x):
    if x in (INF, -INF):
        return mp.mpf(0)
    return mp.exp(-x) / (1 + mp.exp(-x)) ** 2 if link == 0 else mp.npdf(x)


CASES = [
    (-INF, -2.0), (-INF, 0.5), (-INF, 40.0), (-INF, -40.0), (1.3, INF), (-30.0, INF), (45.0, INF),
    (-1.0, 0.5), (-0.2, -0.1999), (2.0, 2.0000001), (30.0, 31.0), (-31.0, -30.0), (-5.0, 7.0),
    (0.0, 1e-9), (-1e-9, 1e-9), (8.0, 9.5), (-9.5, -8.0), (-38.0, -37.5), (20.0, 21.0),
]


def fmt(v):
    if v == INF:
        return "inf"
    if v == -INF:
        return "-inf"
    if abs(v) < mp.mpf("1e-300"):
        return "0.0"  # below the doubles the kernel writes
    return mp.nstr(v, 17, min_fixed=-5, max_fixed=5).replace("e+", "e")


for link in (0, 1):
    for a, b in CASES:
        a_, b_ = mp.mpf(a), mp.mpf(b)
        # Both links are symmetric (F(-x) = 1 - F(x)): in the upper tail the difference of the
        # complements keeps its digits.
        p = F(link, b_) - F(link, a_) if a_ < 0 else F(link, -a_) - F(link, -b_)
        l = mp.log(p)
        da = -f(link, a_) / p
        db = f(link, b_) / p
        print("    {%d, %s, %s, %s, %s, %s}," % (link, fmt(a_), fmt(b_), fmt(l), fmt(da), fmt(db)))
