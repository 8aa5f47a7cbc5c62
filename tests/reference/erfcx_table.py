#!/usr/bin/python3
"""Reference values for tests/unit/ad/test_ordinal_probit_fast.cpp, from mpmath at 50 digits:

  erfcx(u) = e^{u^2} erfc(u) at u from 0 to 1e300 (mpmath's erfc for u <= 1e15; beyond, where
  mpmath's erfc overflows a float in its series check, the asymptotic 1/(sqrt(pi) u) (1 - 1/(2u^2)),
  exact to double there);
  log Phi(b) and phi(b)/Phi(b) at b from -1e100 to 1e8 (for |b| >= 1e8 below 0, Mills' series
  Phi(b) = phi(b)/(-b) (1 - 1/b^2 + 3/b^4), exact to double there).

    /usr/bin/python3 tests/reference/erfcx_table.py
"""
import mpmath as mp

mp.mp.dps = 50

US = ['0', '1e-300', '1e-8', '0.25', '0.5', '0.7071067811865476', '1', '1.5', '2', '3.5', '5', '8', '12',
      '26', '27.5', '100', '1e3', '1e5', '1e8', '1e15', '1e150', '1e300']
BS = ['-1e100', '-1e8', '-40', '-38.6', '-26', '-8', '-3', '-1', '-0.9999', '-0.5', '-1e-9', '0', '1e-9',
      '0.3', '0.5', '1', '2', '5', '6', '8.3', '9', '20', '38', '40', '1e8']


def erfcx(u):
    if u > mp.mpf('1e15'):
        return 1 / (mp.sqrt(mp.pi) * u) * (1 - 1 / (2 * u * u))
    return mp.exp(u * u) * mp.erfc(u)


def log_ndtr_and_ratio(b):
    if b <= mp.mpf('-1e8'):
        s = 1 - 1 / b ** 2 + 3 / b ** 4
        return -b * b / 2 - mp.log(-b) - mp.log(mp.sqrt(2 * mp.pi)) + mp.log(s), -b / s
    p = mp.ncdf(b)
    return mp.log(p), mp.npdf(b) / p


def main():
    print("erfcx:")
    for u in US:
        print("    {%s, %s}," % (u, mp.nstr(erfcx(mp.mpf(u)), 17)))
    print("log Phi, phi/Phi:")
    for b in BS:
        l, d = log_ndtr_and_ratio(mp.mpf(b))
        print("    {%s, %s, %s}," % (b, mp.nstr(l, 17), mp.nstr(d, 17)))


if __name__ == "__main__":
    main()
