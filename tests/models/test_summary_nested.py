"""summary(expand_nested=True) and summary(show_trainable=True)."""

import kgraph as kg
from kgraph import layers


def _summary(model, **kwargs):
    lines = []
    model.summary(print_fn=lines.append, **kwargs)
    assert len(lines) == 1
    return lines[0]


def _model():
    j = kg.Input(shape=(2,), name="deep_in")
    deep = kg.Model(j, layers.Dense(2, name="deep_dense")(j), name="deep")
    i = kg.Input(shape=(3,), name="inner_in")
    inner = kg.Model(i, deep(layers.Dense(2, name="inner_dense")(i)), name="inner")
    x = kg.Input(shape=(3,), name="x")
    h = layers.Dense(3, name="pre")(x)
    return kg.Model(x, layers.Dense(1, name="post")(inner(h)), name="outer")


def _line(text, start):
    (line,) = [line for line in text.splitlines() if line.startswith(start)]
    return line


def test_expand_nested_lists_inner_layers_indented_under_their_model():
    model = _model()
    text = _summary(model, expand_nested=True)
    lines = text.splitlines()
    inner_row = lines.index(_line(text, "inner (Functional)"))
    expected = [("\u2514 inner_in (InputLayer)", "(None, 3)", "0", "-"),
                ("\u2514 inner_dense (Dense)", "(None, 2)", "8", "inner_in[0][0]"),
                ("\u2514 deep (Functional)", "(None, 2)", "6", "inner_dense[0][0]"),
                ("   \u2514 deep_in (InputLayer)", "(None, 2)", "0", "-"),
                ("   \u2514 deep_dense (Dense)", "(None, 2)", "6", "deep_in[0][0]")]
    for offset, (name, shape, params, connected) in enumerate(expected, start=1):
        line = lines[inner_row + offset]
        assert line.startswith(name + " "), line
        assert line.split()[-1] == connected and shape in line
        assert params in line[len(name):].split()
    assert set(lines[inner_row + len(expected) + 1]) == {"-"}  # then the next outer row
    assert lines[inner_row + len(expected) + 2].startswith("post (Dense)")
    # the nested rows do not change the totals, and without the flag they are absent
    assert "Total params: 29 " in text
    collapsed = _summary(model)
    assert "inner_dense" not in collapsed and "\u2514" not in collapsed
    assert "Total params: 29 " in collapsed


def test_show_trainable_column_reflects_frozen_layers():
    model = _model()
    model.get_layer("pre").trainable = False
    model.get_layer("inner").get_layer("deep").trainable = False
    text = _summary(model, show_trainable=True, expand_nested=True)
    header = text.splitlines()[2]
    assert header.split()[-1] == "Trainable" and header.index("Trainable") > header.index(
        "Connected to")
    flags = {"x (InputLayer)": "-", "pre (Dense)": "N", "inner (Functional)": "Y",
             "\u2514 inner_in (InputLayer)": "-", "\u2514 inner_dense (Dense)": "Y",
             "\u2514 deep (Functional)": "N", "   \u2514 deep_dense (Dense)": "N",
             "post (Dense)": "Y"}
    column = header.index("Trainable")
    for start, flag in flags.items():
        line = _line(text, start)
        assert line[column:].strip() == flag, (start, line)
    assert "Non-trainable params: 18 " in text  # pre (12) + deep_dense (6)
    assert "Trainable" not in _summary(model).splitlines()[2]


def test_line_length_is_respected_with_the_extra_column():
    text = _summary(_model(), show_trainable=True, expand_nested=True, line_length=120)
    assert all(len(line) <= 120 for line in text.splitlines())
    assert "=" * 120 in text


def test_expand_nested_sequential_inside_sequential():
    block = kg.Sequential([layers.Dense(4, name="b1"), layers.Dense(4, name="b2")],
                          name="block")
    model = kg.Sequential([kg.Input(shape=(3,)), block, layers.Dense(1, name="last")])
    text = _summary(model, expand_nested=True)
    lines = text.splitlines()
    row = lines.index(_line(text, "block (Sequential)"))
    assert lines[row + 1].startswith("\u2514 input_layer")  # its own (automatic) input
    assert lines[row + 2].startswith("\u2514 b1 (Dense)") and "(None, 4)" in lines[row + 2]
    assert lines[row + 3].startswith("\u2514 b2 (Dense)")
    assert lines[row + 3].split()[-1] == "b1[0][0]"
