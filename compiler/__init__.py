"""compiler: a kgraph model's graph made into a pure JAX program.

>>> import jax, kgraph as kg, compiler
>>> x = kg.Input(shape=(3,))
>>> model = kg.Model(x, kg.layers.Dense(2)(x))
>>> params, state = compiler.compile(model).init(jax.random.PRNGKey(0))
"""

from compiler.export import export
from compiler.program import Program, compile
from kgraph.saving.safetensors_io import load_safetensors, load_safetensors_into, save_safetensors
from compiler.weights import assign, variables

__all__ = ["Program", "assign", "compile", "export", "load_safetensors", "load_safetensors_into",
           "save_safetensors", "variables"]
