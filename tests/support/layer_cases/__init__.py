"""Layer conformance cases, one module per layer family; each defines ``CASES``."""

import importlib
import pkgutil


def all_cases() -> list:
    cases = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(module.CASES)
    names = [c.name for c in cases]
    duplicated = {n for n in names if names.count(n) > 1}
    assert not duplicated, f"duplicate case names: {duplicated}"
    return cases
