"""The README's demo trains the digits model to >= 0.95 test accuracy."""

import pytest

from runtime import demo
import kgraph as kg


def test_digits_dataset_is_shipped_and_well_formed():
    images, labels = kg.datasets.load_digits()
    assert images.shape == (1797, 8, 8) and labels.shape == (1797,)
    assert images.min() == 0 and images.max() == 16
    assert sorted(set(labels.tolist())) == list(range(10))


@pytest.mark.slow
def test_demo_reaches_the_promised_accuracy(capsys):
    accuracy = demo.main()
    out = capsys.readouterr().out
    assert accuracy >= 0.95
    assert "Total params" in out and "Epoch 30/30" in out and "test accuracy" in out
