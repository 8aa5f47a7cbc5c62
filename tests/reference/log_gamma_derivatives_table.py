#!/usr/bin/python3
"""Reference values of log Gamma, digamma and trigamma at 40 digits (mpmath), for
tests/unit/ad/test_log_gamma_derivatives.cpp: each x is the double the C++ literal names, and its
values are printed to 20 significant digits.

    /usr/bin/python3 tests/reference/log_gamma_derivatives_table.py
"""
import mpmath as mp

mp.mp.dps = 40
XS = ["1e-150", "1e-20", "1e-8", "0.001", "0.1", "0.5", "1", "1.25", "1.4616321449683622", "1.5", "1.7",
      "2", "3.7", "9.99", "10", "10.5", "17", "123.25", "1e5", "1e10", "1e15", "1e100", "1e300"]
for s in XS:
    x = mp.mpf(float(s))  # the double, not the decimal
    print("    {%s, %s, %s, %s}," % (s, mp.nstr(mp.loggamma(x), 20, min_fixed=-1, max_fixed=1),
                                     mp.nstr(mp.digamma(x), 20, min_fixed=-1, max_fixed=1),
                                     mp.nstr(mp.polygamma(1, x), 20, min_fixed=-1, max_fixed=1)))
