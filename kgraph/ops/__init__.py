"""Array operations that work on arrays and on KerasTensors alike (``keras.ops`` names).

On arrays they compute at once (``jax.numpy`` / ``jax.nn`` / ``jax.lax``); on KerasTensors
each call becomes a graph node (an ``Operation``, a weightless layer), so
``(x * 2 + 1) @ w`` builds a graph when ``x`` is symbolic and computes when it is an array.
Non-tensor arguments (axis, shapes, dtypes) are stored in the node; ops returning several
arrays (``split``, ``top_k``, ``moments``) give several KerasTensors.

>>> import kgraph as kg, jax.numpy as jnp
>>> from kgraph import ops
>>> ops.add(jnp.ones(2), 1).tolist()
[2.0, 2.0]
>>> ops.add(kg.Input(shape=(2,)), 1).shape
(None, 2)
>>> tokens, mask = kg.Input(shape=(4,), dtype="int32"), kg.Input(shape=(4,), dtype="bool")
>>> ops.logical_or(ops.not_equal(tokens, 0), mask).dtype
dtype('bool')

Every op has a registered name: ``get_op("add") is add``; an Operation node's
``get_config()`` is ``{"name": ..., "op": ..., "kwargs": {...}}`` (see
``kgraph.ops.registry`` for the serialization contract).

The catalog lives in ``kgraph.ops.numpy`` and ``numpy_extra`` (math, creation, reductions,
shapes, indexing), ``kgraph.ops.nn`` (activations, conv, pooling, normalization, attention,
losses), ``kgraph.ops.core`` (conversion, control flow, scatter/segment ops),
``kgraph.ops.linalg`` and ``kgraph.ops.image``, with ``keras.ops``'s names.
"""

from kgraph.ops import image, linalg, nn, numpy  # noqa: F401 - keras.ops's submodules
from kgraph.ops.core import *  # noqa: F401,F403 - the public catalog
from kgraph.ops.einops import rearrange  # noqa: F401 - keras.ops.rearrange
from kgraph.ops.signal import istft, stft  # noqa: F401 - keras.ops.stft, istft
from kgraph.ops.image import (affine_transform, crop_images, elastic_transform,  # noqa: F401
                              extract_patches, extract_patches_3d, gaussian_blur, hsv_to_rgb,
                              map_coordinates, pad_images, perspective_transform, resize,
                              rgb_to_grayscale, rgb_to_hsv, scale_and_translate, sobel_edges,
                              ssim)
from kgraph.ops.linalg import (cholesky, cholesky_inverse, det, eig, eigh, inv,  # noqa: F401
                               jvp, logdet, lstsq, lu_factor, matrix_rank, pinv, qr, slogdet,
                               solve, solve_triangular, svd)
from kgraph.ops.nn import *  # noqa: F401,F403 - the public catalog
from kgraph.ops.numpy import *  # noqa: F401,F403 - the public catalog
from kgraph.ops.numpy_extra import *  # noqa: F401,F403 - the public catalog
from kgraph.ops.numpy_extra import meshgrid, size, vectorize, view  # noqa: F401
from kgraph.ops.registry import (Operation, get_impl, get_op, is_symbolic, op_names,  # noqa: F401
                                 register_array_function, register_custom, register_op)
