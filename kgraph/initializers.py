"""Weight initializers with Keras 3's names, arguments and configs, on ``jax.nn.initializers``.

An initializer is any ``fn(key, shape, dtype) -> array`` (the key comes first, as in
``jax.nn.initializers``; there are no seeds to manage because every weight's key derives
from its path). The classes below are the Keras 3 ones (``GlorotUniform``, ``HeNormal``,
``Orthogonal(gain)``, ``RandomNormal(mean, stddev)``, ...) with ``get_config`` /
``from_config``; ``get`` accepts Keras names (``"glorot_uniform"`` or ``"GlorotUniform"``),
objects, classes, ``{"class_name", "config"}`` dicts, callables and numbers (a constant).

>>> import jax
>>> get("glorot_uniform")(jax.random.PRNGKey(0), (3, 4), "float32").shape
(3, 4)
>>> serialize(RandomNormal(stddev=1.0))
{'class_name': 'RandomNormal', 'config': {'seed': None, 'mean': 0.0, 'stddev': 1.0}}
"""

from __future__ import annotations

import inspect
import math
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from kgraph.base import naming, seed_stream
from kgraph.serializable import Serializable, from_config_or_name

__all__ = [
    "Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Identity",
    "IdentityInitializer", "Initializer", "KerasInitializer", "LecunNormal", "LecunUniform",
    "Ones", "Orthogonal", "OrthogonalInitializer", "RandomInitializer", "RandomNormal",
    "RandomUniform", "STFT", "STFTInitializer", "TruncatedNormal", "VarianceScaling", "Zeros",
    "compute_fans", "constant", "deserialize", "get", "glorot_normal", "glorot_uniform",
    "he_normal", "he_uniform", "identity", "is_builtin", "lecun_normal", "lecun_uniform",
    "ones", "orthogonal", "random_normal", "random_uniform", "serialize", "stft",
    "truncated_normal", "variance_scaling", "zeros"
]


Initializer = Callable  # the protocol: fn(key, shape, dtype) -> array (the class is below)


def _is_key(x) -> bool:
    """A PRNG key: a new-style key array, or a raw ``uint32[2]`` key."""
    if isinstance(x, (jax.Array, np.ndarray)):
        if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
            return True
        return x.dtype == np.uint32 and x.shape == (2,)
    return False


def _keras_form_args(args, kwargs):
    """``(shape, dtype)`` of a Keras-style call ``init(shape, dtype=None)``."""
    shape = args[0] if args else kwargs.pop("shape")
    dtype = args[1] if len(args) > 1 else kwargs.pop("dtype", None)
    return shape, dtype or "float32"


def _takes_key(fn) -> bool:
    try:
        parameters = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return True
    return parameters[:1] != ["shape"]


def _both_forms(call):
    """A ``__call__`` that accepts kgraph's ``(key, shape, dtype)`` and Keras's
    ``(shape, dtype=None)``, whichever form ``call`` itself was written in."""
    keyed = list(inspect.signature(call).parameters)[1:2] == ["key"]

    def dispatch(self, *args, **kwargs):
        key_given = (bool(args) and _is_key(args[0])) or "key" in kwargs
        if keyed and not key_given:  # Keras's form on a kgraph initializer
            shape, dtype = _keras_form_args(args, dict(kwargs))
            return call(self, _keyless_call_key(self), tuple(shape), dtype)
        if not keyed and key_given:  # kgraph calling a Keras-style initializer
            args = args[1:] if args and _is_key(args[0]) else args
            kwargs.pop("key", None)
        return call(self, *args, **kwargs)

    dispatch.__wrapped__ = call
    dispatch.__doc__ = call.__doc__
    return dispatch


def _default_key(key):
    if key is None:
        return seed_stream.next_key()
    return key


def _keyless_call_key(initializer):
    """The key of a call in Keras's form (no key), as Keras seeds it: a ``SeedGenerator``
    seed advances (every call differs); an int seed or none gives a random initializer the
    same values at every call of this object (unseeded: a key drawn from the eager stream
    at its first call, so a clone draws other values)."""
    seed = getattr(initializer, "seed", None)
    if isinstance(seed, seed_stream.seed_generator_class()):
        return seed.next()
    if seed is not None:
        return jax.random.PRNGKey(0)
    if not isinstance(initializer, RandomInitializer):  # no seed of its own
        return seed_stream.next_key()
    if initializer._unseeded_key is None:
        initializer._unseeded_key = seed_stream.next_key()
    return initializer._unseeded_key


class KerasInitializer(Serializable):
    """Base class (``keras.initializers.Initializer``): ``init(key, shape, dtype) -> array``;
    serializable.

    Instances also take Keras's form ``init(shape, dtype=None)``: the key is then drawn
    from the initializer's ``seed`` (the same values every call) or from kgraph's eager
    stream. A subclass may write ``__call__(self, shape, dtype=None)`` in Keras's form;
    kgraph then calls it without a key.

    >>> GlorotUniform(seed=1)(shape=(2, 3)).shape
    (2, 3)
    >>> class Halves(KerasInitializer):
    ...     def __call__(self, shape, dtype=None):
    ...         return jnp.full(shape, 0.5, dtype)
    >>> Halves()(jax.random.PRNGKey(0), (2,), "float32").tolist()
    [0.5, 0.5]
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__call__" in cls.__dict__:
            cls.__call__ = _both_forms(cls.__dict__["__call__"])

    def __call__(self, key, shape, dtype="float32"):
        raise NotImplementedError

    def clone(self):
        return type(self).from_config(self.get_config())

    def __eq__(self, other):
        return type(other) is type(self) and other.get_config() == self.get_config()

    def __hash__(self):
        return hash(type(self).__name__)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


# ------------------------------------------------------------------------- constants
class Constant(KerasInitializer):
    """Every entry equals ``value``."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, key, shape, dtype="float32"):
        return jnp.full(shape, self.value, dtype)

    def get_config(self):
        value = self.value
        if isinstance(value, (np.ndarray, np.generic, jax.Array)):
            value = np.asarray(value).tolist()
        return {"value": value}


class Zeros(KerasInitializer):
    def __call__(self, key, shape, dtype="float32"):
        return jax.nn.initializers.zeros(key, shape, dtype)


class Ones(KerasInitializer):
    def __call__(self, key, shape, dtype="float32"):
        return jax.nn.initializers.ones(key, shape, dtype)


class Identity(KerasInitializer):
    """``gain * eye(rows, cols)``; 2-D shapes only (as Keras)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, key, shape, dtype="float32"):
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices. "
                             f"Received: shape={tuple(shape)} of rank {len(shape)}.")
        return (self.gain * jnp.eye(*shape, dtype=jnp.float32)).astype(dtype)

    def get_config(self):
        return {"gain": self.gain}


def _window_values(owner, window, length, periodic):
    """The ``length`` values of ``window`` (a ``scipy.signal.windows`` name, periodic or
    symmetric, or an array of them) as float64, or None for no window."""
    if window is None:
        return None
    if isinstance(window, str):
        return np.asarray(_named_window(owner, window, length, periodic), np.float64)
    values = np.asarray(window, np.float64)
    if values.shape != (length,):
        raise ValueError(f"{owner}: the shape of `window` must be equal to [frame_length] "
                         f"({length},). Received: window shape={values.shape}")
    return values


def _named_window(owner, name, length, periodic=False):
    import scipy.signal  # only windows by name need it

    try:
        return scipy.signal.get_window(name, length, fftbins=bool(periodic))
    except ValueError as error:
        raise ValueError(f"{owner}: `window` must be the name of a window function of "
                         "scipy.signal.windows taking no parameter (e.g. 'hann', 'hamming'), "
                         f"an array of frame_length values, or None. Received: window={name!r} "
                         f"({error})") from None


def _check_stft_arguments(owner, window, scaling):
    """``window`` checked with ``scaling`` (for ``STFT`` and ``STFTSpectrogram``); an array
    window saved in Keras's ``{"class_name": "__numpy__", ...}`` form as an array."""
    if scaling is not None and scaling not in ("density", "spectrum"):
        raise ValueError(f"{owner}: `scaling` is invalid, it must be `None`, 'density' or "
                         f"'spectrum'. Received: scaling={scaling!r}")
    if isinstance(window, str):
        _named_window(owner, window, 1)
    if isinstance(window, dict):
        if window.get("class_name") not in ("__numpy__", "__tensor__"):
            raise ValueError(f"{owner}: `window` must be a window name, an array or None. "
                             f"Received: window={window!r:.200}")
        config = window.get("config") or {}
        window = np.asarray(config.get("value"), config.get("dtype") or "float32")
    return window


def _window_config(window):
    """``window`` as a config holds it: an array as a (JSON) list of its values."""
    return window.tolist() if isinstance(window, (np.ndarray, jax.Array)) else window


class STFT(KerasInitializer):
    """The real (``side="real"``, cosines) or imaginary (``"imag"``, minus sines) parts of
    the DFT as convolution kernels of shape ``(frame_length, 1, fft_length // 2 + 1)``,
    multiplied by ``window`` (a ``scipy.signal.windows`` name, an array, or None) and
    divided by its L2 norm (``scaling="density"``) or its sum (``"spectrum"``). Keras's
    ``STFT`` (also ``STFTInitializer``): the kernels of ``layers.STFTSpectrogram``.

    >>> kernel = STFT("real", window=None)(shape=(4, 1, 3))
    >>> (kernel[:, 0, :].round(3) + 0.0).tolist()
    [[1.0, 1.0, 1.0], [1.0, 0.0, -1.0], [1.0, -1.0, 1.0], [1.0, 0.0, -1.0]]
    """

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in ("real", "imag"):
            raise ValueError(f"STFT: `side` should be 'real' or 'imag'. Received: side={side!r}")
        window = _check_stft_arguments("STFT", window, scaling)
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, periodic

    def __call__(self, shape, dtype=None):
        dtype = jnp.dtype(dtype or "float32")
        frame_length, _, bins = (int(d) for d in shape)
        # As Keras computes them, in `dtype`: angles -2 * pi * t * k / fft_length.
        freq = jnp.arange(bins, dtype=dtype).reshape(1, 1, bins) / ((bins - 1) * 2)
        time = jnp.arange(frame_length, dtype=dtype).reshape(frame_length, 1, 1)
        angles = (-2 * time) * freq * jnp.arccos(jnp.asarray(-1, dtype))
        kernel = (jnp.cos if self.side == "real" else jnp.sin)(angles).astype(dtype)
        window = _window_values("STFT", self.window, frame_length, self.periodic)
        if window is None:
            return kernel
        window = jnp.asarray(window, dtype).reshape(frame_length, 1, 1)
        scale = {"density": lambda: jnp.sqrt(jnp.sum(jnp.square(window))),
                 "spectrum": lambda: jnp.sum(jnp.abs(window)),
                 None: lambda: 1}[self.scaling]()
        return kernel * window / scale

    def get_config(self):
        return {"side": self.side, "window": _window_config(self.window),
                "periodic": self.periodic, "scaling": self.scaling}


# ---------------------------------------------------------------------------- random
class RandomInitializer(KerasInitializer):
    """An initializer drawing from ``key``. ``seed``, if given, is folded into it: an int,
    or a ``SeedGenerator`` (its seed; called without a key, as Keras calls initializers, it
    draws the generator's next key, so every call differs) or that generator's config.

    >>> from kgraph.random import SeedGenerator
    >>> init = RandomNormal(seed=SeedGenerator(1))
    >>> bool((init(shape=(3,)) != init(shape=(3,))).all()), init.get_config()["seed"]["config"]["seed"]
    (True, 1)
    """

    def __init__(self, seed=None):
        if isinstance(seed, dict) and seed.get("class_name") == "SeedGenerator":
            seed = seed_stream.seed_generator_class().from_config(seed.get("config") or {})
        if seed is not None and not isinstance(seed, (int, seed_stream.seed_generator_class())):
            raise ValueError("`seed` argument should be an instance of `keras.random."
                             "SeedGenerator()` or an integer (or None). "
                             f"Received: seed={seed!r}")
        self.seed = seed
        self._unseeded_key = None  # see _keyless_call_key

    def _key(self, key):
        key = _default_key(key)
        if self.seed is None:
            return key
        seed = self.seed.seed if isinstance(self.seed, seed_stream.seed_generator_class()) else self.seed
        return jax.random.fold_in(key, seed)

    def get_config(self):
        if isinstance(self.seed, seed_stream.seed_generator_class()):  # as Keras writes it
            return {"seed": {"module": "keras.random", "class_name": "SeedGenerator",
                             "config": self.seed.get_config(), "registered_name": None}}
        return {"seed": self.seed}


class RandomNormal(RandomInitializer):
    """N(mean, stddev**2); Keras's default stddev is 0.05."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev = mean, stddev
        super().__init__(seed)

    def __call__(self, key, shape, dtype="float32"):
        values = jax.nn.initializers.normal(self.stddev)(self._key(key), shape, dtype)
        return values + jnp.asarray(self.mean, dtype) if self.mean else values

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class TruncatedNormal(RandomInitializer):
    """N(mean, stddev**2) truncated (redrawn) beyond 2 standard deviations."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev = mean, stddev
        super().__init__(seed)

    def __call__(self, key, shape, dtype="float32"):
        init = jax.nn.initializers.truncated_normal(self.stddev, lower=-2.0, upper=2.0)
        values = init(self._key(key), shape, dtype)
        return values + jnp.asarray(self.mean, dtype) if self.mean else values

    def get_config(self):
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class RandomUniform(RandomInitializer):
    """U[minval, maxval); Keras's default is U[-0.05, 0.05)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval = minval, maxval
        super().__init__(seed)

    def __call__(self, key, shape, dtype="float32"):
        init = jax.nn.initializers.uniform(self.maxval - self.minval)
        return init(self._key(key), shape, dtype) + jnp.asarray(self.minval, dtype)

    def get_config(self):
        return {**super().get_config(), "minval": self.minval, "maxval": self.maxval}


def compute_fans(shape, input_axes=None, output_axes=None):
    """Keras's ``(fan_in, fan_out)`` of a weight shape (kernels: (..., in, out))."""
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return (int(math.prod(shape[a] for a in input_axes)),
                int(math.prod(shape[a] for a in output_axes)))
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


_JAX_DISTRIBUTION = {"truncated_normal": "truncated_normal", "untruncated_normal": "normal",
                     "uniform": "uniform"}


class VarianceScaling(RandomInitializer):
    """Samples with variance ``scale / n``, ``n`` the fan selected by ``mode``.

    ``distribution``: ``"truncated_normal"`` (truncated at 2 stddev, with jax's 0.8796...
    correction so the truncated stddev is right), ``"untruncated_normal"``, or ``"uniform"``
    (within ``±sqrt(3 * scale / n)``). Fans follow Keras (``compute_fans``), including
    rank-0/1 shapes and explicit ``input_axes``/``output_axes``.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 input_axes=None, output_axes=None):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be positive float. Received: scale={scale}")
        allowed_modes = {"fan_in", "fan_out", "fan_avg"}
        if mode not in allowed_modes:
            raise ValueError(f"Invalid `mode` argument: {mode}. "
                             f"Please use one of {sorted(allowed_modes)}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in _JAX_DISTRIBUTION:
            raise ValueError(f"Invalid `distribution` argument: {distribution}. "
                             f"Please use one of {sorted(_JAX_DISTRIBUTION)}")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.input_axes = list(input_axes) if input_axes is not None else None
        self.output_axes = list(output_axes) if output_axes is not None else None
        super().__init__(seed)

    def __call__(self, key, shape, dtype="float32"):
        shape = tuple(int(d) for d in shape)
        size = math.prod(shape)
        if size == 0:
            return jnp.zeros(shape, dtype)
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        # On a (1, size) view jax's fan_in is 1, so it draws with exactly `variance`; the
        # random bits are those of a direct call on `shape` (same flat stream).
        init = jax.nn.initializers.variance_scaling(variance, "fan_in",
                                                    _JAX_DISTRIBUTION[self.distribution])
        return init(self._key(key), (1, size), dtype).reshape(shape)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "mode": self.mode,
                "distribution": self.distribution, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class _FixedVarianceScaling(VarianceScaling):
    _args = (1.0, "fan_in", "truncated_normal")

    def __init__(self, seed=None, input_axes=None, output_axes=None):
        scale, mode, distribution = self._args
        super().__init__(scale, mode, distribution, seed, input_axes, output_axes)

    def get_config(self):
        return {"seed": self.seed, "input_axes": self.input_axes,
                "output_axes": self.output_axes}


class GlorotUniform(_FixedVarianceScaling):
    """U(±sqrt(6 / (fan_in + fan_out)))."""
    _args = (1.0, "fan_avg", "uniform")


class GlorotNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out))."""
    _args = (1.0, "fan_avg", "truncated_normal")


class LecunNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(1 / fan_in)."""
    _args = (1.0, "fan_in", "truncated_normal")


class LecunUniform(_FixedVarianceScaling):
    """U(±sqrt(3 / fan_in))."""
    _args = (1.0, "fan_in", "uniform")


class HeNormal(_FixedVarianceScaling):
    """Truncated normal with stddev sqrt(2 / fan_in)."""
    _args = (2.0, "fan_in", "truncated_normal")


class HeUniform(_FixedVarianceScaling):
    """U(±sqrt(6 / fan_in))."""
    _args = (2.0, "fan_in", "uniform")


class Orthogonal(RandomInitializer):
    """A (semi-)orthogonal matrix times ``gain``; shapes of rank >= 2, flattened to
    ``(prod(shape[:-1]), shape[-1])`` as Keras does."""

    def __init__(self, gain=1.0, seed=None):
        self.gain = gain
        super().__init__(seed)

    def __call__(self, key, shape, dtype="float32"):
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional. "
                             f"Received: shape={tuple(shape)} of rank {len(shape)}.")
        init = jax.nn.initializers.orthogonal(self.gain)
        if jnp.dtype(dtype).itemsize < 4:  # no 16-bit QR kernel on CPU: draw in float32
            return init(self._key(key), tuple(shape), jnp.float32).astype(dtype)
        return init(self._key(key), tuple(shape), dtype)

    def get_config(self):
        return {**super().get_config(), "gain": self.gain}


# ------------------------------------------------------------------------ look-ups
_CLASSES = [Constant, Zeros, Ones, Identity, RandomNormal, TruncatedNormal, RandomUniform,
            VarianceScaling, GlorotUniform, GlorotNormal, LecunNormal, LecunUniform, HeNormal,
            HeUniform, Orthogonal]


def is_builtin(initializer) -> bool:
    """Whether ``initializer`` is an instance of one of the classes above (not a subclass):
    then its config alone decides what it draws, and it traces under ``jit`` and ``vmap``."""
    return type(initializer) in _CLASSES


_BY_NAME = {cls.__name__: cls for cls in _CLASSES}
_BY_NAME.update({naming.to_snake_case(cls.__name__): cls for cls in _CLASSES})
_BY_NAME.update({"normal": RandomNormal, "uniform": RandomUniform, "one": Ones, "zero": Zeros,
                 "IdentityInitializer": Identity, "OrthogonalInitializer": Orthogonal})
# STFT is deterministic, but not among _CLASSES: its window may be an array (no hashable config)
_BY_NAME.update({"STFT": STFT, "stft": STFT, "STFTInitializer": STFT})


def _lookup(name):
    cls = _BY_NAME.get(name) or _BY_NAME.get(name.lower())
    if cls is None:
        names = sorted(n for n in _BY_NAME if n == n.lower())
        raise ValueError(f"Unknown initializer {name!r}. Expected one of {names} (or their "
                         "CamelCase class names), a config dict, a number, or a callable "
                         "fn(key, shape, dtype).")
    return cls


def _array_initializer(array):
    """Keras's initializer of given values: called in kgraph's ``(key, shape, dtype)`` form
    or Keras's ``(shape, dtype=None)``, on ``array``'s shape only."""
    array = np.asarray(array)

    def init(*args, **kwargs):
        args, kwargs = _without_key(args, kwargs)
        shape, dtype = _keras_form_args(args, kwargs)
        if tuple(shape) != array.shape:
            raise ValueError(f"Expected `shape` to be {array.shape} for direct tensor as "
                             f"initializer. Received shape={tuple(shape)}")
        return jnp.asarray(array, dtype)

    return init


def _without_key(args, kwargs):
    """A call's arguments without kgraph's leading key (if given)."""
    kwargs = dict(kwargs)
    kwargs.pop("key", None)
    return (args[1:] if args and _is_key(args[0]) else args), kwargs


def get(identifier) -> Initializer:
    """An initializer from a Keras name (``"he_normal"``, ``"HeNormal"``), a
    ``{"class_name", "config"}`` dict, an initializer class or object, a callable
    ``fn(key, shape, dtype)``, a number (a ``Constant``) or an array (used as is); None
    stays None (the weight's default initializer, as Keras's)."""
    if identifier is None:
        return None
    if isinstance(identifier, bool):
        raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")
    if isinstance(identifier, (int, float)):
        return Constant(identifier)
    if isinstance(identifier, str):
        return _lookup(identifier)()
    if isinstance(identifier, dict):
        if "class_name" not in identifier:
            raise ValueError(f"Could not interpret initializer config {identifier!r}: "
                             'expected {"class_name": ..., "config": {...}}.')
        return _lookup(identifier["class_name"]).from_config(identifier.get("config") or {})
    if inspect.isclass(identifier):
        return identifier()
    if isinstance(identifier, (np.ndarray, np.generic, jax.Array)):
        return _array_initializer(identifier)
    if callable(identifier):
        if not isinstance(identifier, KerasInitializer) and not _takes_key(identifier):
            return _keyless(identifier)  # Keras's form: fn(shape, dtype=None)
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}. Expected a "
                     "Keras name, a config dict, a number, or a callable fn(key, shape, dtype).")


def _keyless(fn):
    """A Keras-style ``fn(shape, dtype=None)`` that kgraph calls as ``fn(key, shape, dtype)``
    (and Keras's form still calls as written)."""
    def init(*args, **kwargs):
        keyed = (bool(args) and _is_key(args[0])) or "key" in kwargs
        args, kwargs = _without_key(args, kwargs)
        if not keyed:
            return fn(*args, **kwargs)
        shape, dtype = _keras_form_args(args, kwargs)
        return fn(shape, dtype=dtype)

    init.__name__ = getattr(fn, "__name__", "initializer")
    init.keras_function = fn
    return init


def serialize(initializer):
    """The JSON-compatible form of ``initializer``: a name or number stays as given, an
    initializer object becomes ``{"class_name": ..., "config": {...}}``."""
    if initializer is None or isinstance(initializer, (str, int, float)):
        return initializer
    if isinstance(initializer, KerasInitializer):
        return {"class_name": type(initializer).__name__, "config": initializer.get_config()}
    if isinstance(initializer, dict) and "class_name" in initializer:
        return initializer
    raise ValueError(f"Cannot serialize initializer {initializer!r}: use a Keras name, a "
                     "kgraph.initializers object or a number.")


def deserialize(config, custom_objects=None):
    """The inverse of ``serialize`` (a class named in ``custom_objects`` first, as Keras)."""
    return from_config_or_name(config, custom_objects, get)


# Keras's other names for the same classes.
Initializer = KerasInitializer
IdentityInitializer, OrthogonalInitializer = Identity, Orthogonal
constant, zeros, ones, identity, orthogonal = Constant, Zeros, Ones, Identity, Orthogonal
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling = VarianceScaling
glorot_normal, glorot_uniform, he_normal, he_uniform = (GlorotNormal, GlorotUniform, HeNormal,
                                                        HeUniform)
lecun_normal, lecun_uniform = LecunNormal, LecunUniform
STFTInitializer = stft = STFT
