"""``utils.Progbar``: the values Keras's Progbar shows (running averages weighted by the
steps each update covers, stateful metrics as given, the last update as given), and a bar
that draws without failing."""

import io

import keras
import pytest

import kgraph as kg

SCRIPTS = [
    ({}, [("update", 2, [("loss", 0.5), ("acc", 0.1)]), ("update", 5, [("loss", 0.2)]),
          ("add", 1, [("loss", 0.3), ("acc", 0.4)]), ("update", 8, [("acc", 0.9)])]),
    ({"stateful_metrics": ["acc"]}, [("update", 3, [("loss", 1.5), ("acc", 0.2)]),
                                      ("update", 6, [("loss", -0.5), ("acc", 0.7)]),
                                      ("update", 8, [], True)]),
    ({"stateless_metrics": ["loss"]}, [("update", 4, [("loss", 2.0), ("acc", 0.5)]),
                                       ("update", 8, [("loss", 1e-5), ("acc", 0.25)], False),
                                       ("update", 8, [], True)]),
]


def _run(module, kwargs, script, capsys):
    bar = module.utils.Progbar(8, verbose=2, **kwargs)
    for call, n, values, *finalize in script:
        if call == "add":
            bar.add(n, values)
        else:
            bar.update(n, values, finalize=finalize[0] if finalize else None)
    line = capsys.readouterr().out.strip()
    return line.split(" - ")[0], line.split(" - ")[3:]  # "8/8", the values (no times)


@pytest.mark.parametrize("kwargs, script", SCRIPTS)
def test_progbar_shows_kerass_values(kwargs, script, capsys):
    assert _run(kg, kwargs, script, capsys) == _run(keras, kwargs, script, capsys)


def test_progbar_bar_draws_and_finishes():
    out = io.StringIO()
    bar = kg.utils.Progbar(3, verbose=1, file=out, interval=0)
    for step in range(1, 4):
        bar.update(step, [("loss", 1.0 / step)])
    text = out.getvalue()
    assert "3/3" in text and "loss: 0.3333" in text
    with pytest.raises(ValueError, match="Only one of"):
        kg.utils.Progbar(3, stateful_metrics=["a"], stateless_metrics=["b"])
