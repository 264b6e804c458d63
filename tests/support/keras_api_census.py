"""How much of Keras 3's public API ``import kgraph as keras`` offers: every public object
reachable from ``keras`` (modules walked recursively, ``keras.src`` left out), counted once
however many modules export it, and found if kgraph has it under one of its Keras paths.

    python tests/support/keras_api_census.py     # prints the figure and what is missing
"""

from __future__ import annotations

import collections
import os
import types


def census(keras, kgraph):
    """``(objects found, objects in all, {module: [missing names]})``."""
    seen, paths = set(), collections.defaultdict(list)

    def walk(module, prefix):
        if id(module) in seen:
            return
        seen.add(id(module))
        for name in dir(module):
            if name.startswith("_"):
                continue
            value = getattr(module, name)
            path = f"{prefix}.{name}" if prefix else name
            if isinstance(value, types.ModuleType):
                if name != "src" and not value.__name__.startswith("keras.src"):
                    walk(value, path)
            else:
                paths[id(value)].append(path)

    def found(path):
        target = kgraph
        for part in path.split("."):
            if not hasattr(target, part):
                return False
            target = getattr(target, part)
        return True

    walk(keras, "")
    missing = collections.defaultdict(list)
    count = 0
    for options in paths.values():
        if any(found(p) for p in options):
            count += 1
        else:
            module, _, name = options[0].rpartition(".")
            missing[module or "keras"].append(name)
    return count, len(paths), dict(missing)


if __name__ == "__main__":
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras

    import kgraph

    have, total, missing = census(keras, kgraph)
    print(f"Keras {keras.__version__}: kgraph offers {have} of {total} public objects "
          f"({100 * have / total:.1f}%)")
    for module, names in sorted(missing.items(), key=lambda item: -len(item[1])):
        print(f"  {module}: {len(names)} missing: {', '.join(sorted(names)[:6])}"
              f"{', ...' if len(names) > 6 else ''}")
