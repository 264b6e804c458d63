"""``keras.src.testing.test_utils``: ``named_product`` (named test cases of a product of
parameters, for absl's ``parameterized.named_parameters``) and ``get_test_data`` (a seeded,
balanced, stratified classification data set), as Keras's test files use them.

>>> [case["testcase_name"] for case in named_product(dtype=["int32", "float32"], axis=[0, 1])]
['int32_0', 'float32_0', 'int32_1', 'float32_1']
"""

from __future__ import annotations

import numpy as np

__all__ = ["get_test_data", "named_product"]


def _case_name(value) -> str:
    return (value.__name__ if hasattr(value, "__name__") else str(value)).lower()


def named_product(*args, **kwargs) -> list[dict]:
    """Every combination of one case from each of ``args`` (sequences of dicts with a
    ``"testcase_name"``) and one value of each keyword's list; names joined by ``_`` in
    argument order, the first argument varying fastest."""
    groups = list(args) + [[{"testcase_name": _case_name(v), key: v} for v in values]
                           for key, values in kwargs.items()]
    cases = [{}]
    for group in groups:
        grown = []
        for choice in group:
            for case in cases:
                name = "_".join(n for n in (case.get("testcase_name", ""),
                                            choice["testcase_name"]) if n)
                grown.append({**case, **choice, "testcase_name": name})
        cases = grown
    return cases


def get_test_data(train_samples, test_samples, input_shape, num_classes, random_seed=None):
    """``(x_train, y_train), (x_test, y_test)``: samples around one random template per class
    (noise of unit variance), classes balanced and split stratified, from NumPy's global
    generator seeded with ``random_seed``."""
    np.random.seed(random_seed)
    total = train_samples + test_samples
    per_class = total // num_classes
    y = np.array([c for c in range(num_classes) for _ in range(per_class)], dtype=np.int32)
    y = np.concatenate([y, np.array([i % num_classes for i in range(total - len(y))],
                                    dtype=np.int64)])
    templates = 2 * num_classes * np.random.random((num_classes,) + input_shape)
    x = np.zeros((total,) + input_shape, dtype=np.float32)
    for i in range(total):
        x[i] = templates[y[i]] + np.random.normal(loc=0, scale=1.0, size=input_shape)
    order = np.arange(total)
    np.random.shuffle(order)
    x, y = x[order], y[order]

    train, test = ([], []), ([], [])
    for c in range(num_classes):
        members = np.where(y == c)[0]
        np.random.shuffle(members)
        cut = int(train_samples / num_classes)
        for (xs, ys), chosen in ((train, members[:cut]), (test, members[cut:])):
            xs.extend(x[chosen])
            ys.extend(y[chosen])
    (x_train, y_train), (x_test, y_test) = [(np.array(xs), np.array(ys)) for xs, ys in (train,
                                                                                     test)]
    train_order, test_order = np.arange(len(x_train)), np.arange(len(x_test))
    np.random.shuffle(train_order)
    np.random.shuffle(test_order)
    return (x_train[train_order], y_train[train_order]), (x_test[test_order], y_test[test_order])
