"""``utils.Config`` behaves as Keras's: dict and attribute access, freezing, JSON."""


import keras
import pytest

import kgraph as kg


@pytest.mark.parametrize("lib", [kg, keras], ids=["kgraph", "keras"])
def test_config_as_keras(lib):
    config = lib.utils.Config(learning_rate=0.1, momentum=0.9)
    config.use_ema = True
    config["seed"] = 123
    assert config.seed == 123 and config["learning_rate"] == 0.1 and "use_ema" in config
    assert list(config) == ["learning_rate", "momentum", "seed", "use_ema"] and len(config) == 4
    assert config.as_dict() == {"learning_rate": 0.1, "momentum": 0.9, "use_ema": True,
                                "seed": 123}
    assert config.to_json().startswith('{"learning_rate": 0.1')
    assert config.pop("momentum") == 0.9 and config.get("momentum", 5) == 5
    with pytest.raises(AttributeError, match="Did you mean 'seed'"):
        config.sed
    config.freeze()
    assert config.frozen
    for change in (lambda: setattr(config, "x", 1), lambda: config.update(x=1),
                   lambda: config.__setitem__("x", 1), lambda: config.__delitem__("seed")):
        with pytest.raises(ValueError, match="frozen"):
            change()
    config.unfreeze()
    del config["seed"]
    assert "seed" not in config
