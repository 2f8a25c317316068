"""Violations the suite knows about, each with its reason: reported as EXPECTED, not failing
the run. An entry names the issue or document that owns it; remove it when that is fixed
(the suite then checks the property again for those cases)."""
from cases import Case


def expected(prop, case, detail):
    """The reason a violation of prop on case is known, or None (a new violation)."""
    return None


# Cases that found a known issue, run in every CI sample so the entry above stays
# exercised: (property, case, keyword arguments of the property's function).
PINNED = []
