"""Assertions of the validation scripts' unit tests (test_*.py here, no gcsim): the first
failure prints FAIL and exits 1, which CTest reports."""
import sys


def check(cond, what):
    if not cond:
        print("FAIL: %s" % what)
        sys.exit(1)


def close(a, b, what, tol=1e-9):
    check(abs(a - b) < tol, "%s: %r != %r" % (what, a, b))
