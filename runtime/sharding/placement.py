"""``MeshPlacement``: where a Trainer's train state and batches live on a mesh.

The weights (params and state) go where the ``ShardingRules`` say; the optimizer state
follows the params it tracks (``optax.tree_map_params``: Adam's moments are sharded like
their weights, its step count is replicated); the step number, key and metrics are
replicated; a batch is split over the data axis on its leading (batch) dimension.
Inside the compiled steps the new train state is constrained to the same shardings, so
they stay the same from step to step and donation keeps reusing the buffers.

On several processes (``jax.distributed.initialize``), each process gives its own rows
of every batch (``jax.make_array_from_process_local_data``): the global batch is the
processes' batches together, in process order.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.sharding import NamedSharding, PartitionSpec

from compiler import stacking
from kgraph.interpreter.walk import NodeHook
from runtime.path_rules import PathRules, RuleHook
from runtime.sharding.rules import ShardingRules

__all__ = ["MeshPlacement", "OneDevice"]


class MeshPlacement:
    """The shardings of a Trainer on ``mesh`` (see the module docstring).

    Args:
      mesh: a ``jax.sharding.Mesh`` (e.g. ``jax.make_mesh((8,), ("data",))``).
      rules: ``ShardingRules`` for the weights (None: every weight replicated: data
        parallelism).
      optimizer: the optax transformation whose state is placed like the params.
      data_axis: the mesh axis (or axes) batches are split over (default: the mesh's
        first axis).
    """

    def __init__(self, mesh, rules=None, optimizer=None, data_axis=None):
        if not isinstance(mesh, jax.sharding.Mesh):
            raise TypeError(f"mesh must be a jax.sharding.Mesh (jax.make_mesh(...)), "
                            f"received {type(mesh).__name__}.")
        # The steps leave the propagation of shardings to XLA (GSPMD): the same devices and
        # axis names, as Auto axes (jax.make_mesh makes Explicit ones by default).
        auto = (jax.sharding.AxisType.Auto,) * len(mesh.axis_names)
        self.mesh = jax.sharding.Mesh(mesh.devices, mesh.axis_names, axis_types=auto)
        self.rules = rules if rules is not None else ShardingRules()
        if not isinstance(self.rules, ShardingRules):
            raise TypeError(f"sharding must be a runtime.ShardingRules, received "
                            f"{type(self.rules).__name__}.")
        self.optimizer = optimizer
        mesh = self.mesh
        data_axis = mesh.axis_names[0] if data_axis is None else data_axis
        if isinstance(data_axis, list):
            data_axis = tuple(data_axis)
        axes = data_axis if isinstance(data_axis, tuple) else (data_axis,)
        for axis in axes:
            if axis not in mesh.shape:
                raise ValueError(f"data_axis {axis!r} is not an axis of the mesh, which has "
                                 f"{dict(mesh.shape)}.")
        self.data_axis = data_axis
        self.data_parts = 1
        for axis in axes:
            self.data_parts *= mesh.shape[axis]
        self.replicated = NamedSharding(mesh, PartitionSpec())
        self.hints = _ActivationHints(self.rules.activations, mesh)
        self.stacked_runs: list = []  # the program's (``compiler.stacking``), set by a Trainer

    def __repr__(self) -> str:
        return f"MeshPlacement(mesh={dict(self.mesh.shape)}, data_axis={self.data_axis!r})"

    # The interface a Trainer uses, shared with ``OneDevice``.
    replicated_only = True  # packing: only replicated arrays join a packed buffer

    def check_weight_paths(self, paths, model_name: str) -> None:
        """A sharding rule matching none of the model's weight ``paths`` is an error."""
        self.rules.check_used(paths, model_name)

    def packing_key(self, train_state) -> tuple:
        """What, besides shapes, a packing of ``train_state`` depends on: which arrays are
        replicated (their sharding)."""
        return tuple(getattr(getattr(a, "sharding", None), "is_fully_replicated", False)
                     for a in jax.tree_util.tree_leaves(train_state))

    def whole(self, tree, copy: bool):
        """``tree`` made whole on this process (gathered from other processes' devices),
        else copied if ``copy``."""
        if jax.process_count() > 1:
            return self.gathered(tree)
        return jax.tree_util.tree_map(jnp.copy, tree) if copy else tree

    # ------------------------------------------------------------ shardings
    def weight_shardings(self, tree):
        """Shardings of a params or state tree. In the stacked layout the rules apply to
        each block's own path (``"block_3/dense/kernel"``); a run's blocks must then be
        split alike, and the stacked leaf is split as they are, with its block axis whole."""
        runs = [run for run in self.stacked_runs if run.held_in(tree)]
        if not runs:
            return self.rules.shardings(tree, self.mesh)
        abstract = jax.tree_util.tree_map(
            lambda a: jax.ShapeDtypeStruct(jnp.shape(a), jnp.result_type(a)), tree)
        named = self.rules.shardings(stacking.unstack_tree(runs, abstract), self.mesh)
        return stacking.stack_tree(runs, named, combine=self._stacked_sharding)

    def _stacked_sharding(self, shardings, where):
        specs = [tuple(s.spec) for s in shardings]
        if any(spec != specs[0] for spec in specs):
            odd = next(i for i, spec in enumerate(specs) if spec != specs[0])
            raise ValueError(
                f'The sharding rules split the blocks of "{where}" (repeated blocks, stacked '
                f"to run as one scan) differently: block 0 as P{specs[0]}, block {odd} as "
                f"P{specs[odd]}. Give the blocks one rule, or compile with "
                "scan_blocks=False.")
        if not specs[0]:
            return self.replicated
        return NamedSharding(self.mesh, PartitionSpec(None, *specs[0]))

    def train_state_shardings(self, ts):
        """A TrainState of ``NamedSharding``s for ``ts`` (arrays, tracers or abstract)."""
        params = self.weight_shardings(ts.params)
        state = self.weight_shardings(ts.state)
        replicated = self.replicated
        opt_state = self._opt_state_shardings(ts.opt_state, ts.params, params)
        return ts._replace(params=params, state=state, opt_state=opt_state,
                           step=replicated, key=replicated,
                           metrics=jax.tree_util.tree_map(lambda _: replicated, ts.metrics))

    def _opt_state_shardings(self, opt_state, params, param_shardings):
        """Each optimizer-state leaf shaped like its param (Adam's moments) is sharded like
        it; everything else (counts, Adafactor's factored rows, masked parts) is
        replicated."""
        replicated = self.replicated
        fallback = jax.tree_util.tree_map(lambda _: replicated, opt_state)
        if self.optimizer is None or not jax.tree_util.tree_leaves(opt_state):
            return fallback

        def like_param(leaf, param, sharding):
            if (isinstance(sharding, NamedSharding) and hasattr(leaf, "shape")
                    and tuple(leaf.shape) == tuple(jnp.shape(param))):
                return sharding
            return jax.tree_util.tree_map(lambda _: replicated, leaf)

        try:
            return optax.tree_map_params(
                self.optimizer, like_param, opt_state, params, param_shardings,
                transform_non_params=lambda leaf: jax.tree_util.tree_map(
                    lambda _: replicated, leaf),
                is_leaf=lambda x: isinstance(x, (NamedSharding, optax.MaskedNode)))
        except Exception:  # noqa: BLE001 - a state optax can't map (e.g. labels from a
            return fallback  # function of the params): replicated, still on the mesh

    def batch_sharding(self, leaf, local: bool = False):
        """The sharding of one batch array: split on its leading dimension (``local``:
        ``leaf`` is this process's share of a batch of all processes)."""
        shape = jnp.shape(leaf)
        if not shape:
            return self.replicated
        rows = shape[0] * (jax.process_count() if local else 1)
        if rows % self.data_parts:
            raise ValueError(
                f"A batch of {rows} rows can't be split evenly over mesh axis "
                f"{self.data_axis!r} ({self.data_parts} devices): use a batch size that "
                f"is a multiple of {self.data_parts} (with a loss that gives one value per "
                "batch, the last batch is not padded: the number of samples too).")
        return NamedSharding(self.mesh, PartitionSpec(self.data_axis))

    def batch_split(self, x):
        """The node hook keeping every activation split as the batch ``x`` is (with
        ``ShardingRules(split_activations=True)``), or None."""
        leaves = jax.tree_util.tree_leaves(x)
        if not (self.rules.split_activations and leaves and jnp.ndim(leaves[0])):
            return None
        return _BatchSplit(NamedSharding(self.mesh, PartitionSpec(self.data_axis)),
                           jnp.shape(leaves[0])[0])

    def put_batch(self, tree, stacked: bool = False):
        """Host arrays split over the data axis on their batch dimension (the second one
        of ``stacked`` blocks of steps): each device receives only its rows."""
        several = jax.process_count() > 1

        def put(leaf):
            if stacked and jnp.ndim(leaf) >= 2:
                self.batch_sharding(leaf[0], local=several)  # checks the batch divides
                sharding = NamedSharding(self.mesh, PartitionSpec(None, self.data_axis))
            else:
                sharding = self.batch_sharding(leaf, local=several)
            if several:  # each process gives its own rows; together, the global batch
                return jax.make_array_from_process_local_data(sharding, np.asarray(leaf))
            return jax.device_put(leaf, sharding)

        return jax.tree_util.tree_map(put, tree)

    def local_rows(self, tree):
        """This process's rows of batch-sharded outputs (all of them on one process)."""
        if jax.process_count() == 1:
            return tree
        from jax.experimental import multihost_utils

        return multihost_utils.global_array_to_host_local_array(
            tree, self.mesh, PartitionSpec(self.data_axis))

    # --------------------------------------------------- inside compiled steps
    def constrain_state(self, ts):
        return jax.lax.with_sharding_constraint(ts, self.train_state_shardings(ts))

    def constrain_batch(self, tree):
        return jax.tree_util.tree_map(
            lambda leaf: jax.lax.with_sharding_constraint(leaf, self.batch_sharding(leaf)),
            tree)

    # ------------------------------------------------------------ outside
    def from_weights(self, trainer, params, state, key, opt_state=None, read_only=False):
        """A train state on the mesh from whole weights (a model's own): one copy each,
        straight into its sharding (never aliasing the arrays given: the steps donate
        their train state, and the model's arrays must survive; ``read_only`` too, as the
        copies are what puts them on the mesh); a fresh optimizer state is created
        sharded."""
        params, state = _copied(
            (params, state), (self.weight_shardings(params), self.weight_shardings(state)))
        abstract = jax.eval_shape(trainer._train_state, params, state, key, opt_state)
        shardings = self.train_state_shardings(abstract)
        if opt_state is None:
            opt_state = jax.jit(trainer.init_opt_state,
                                out_shardings=shardings.opt_state)(params, state)
        else:
            opt_state = _copied(opt_state, shardings.opt_state)
        return abstract._replace(
            params=params, state=state, opt_state=opt_state,
            step=jax.device_put(jnp.zeros((), jnp.int32), self.replicated),
            key=jax.device_put(key, self.replicated))

    def gathered(self, tree):
        """``tree`` with arrays that span other processes' devices made whole on every
        process (``multihost_utils.process_allgather``)."""
        from jax.experimental import multihost_utils

        def whole(leaf):
            if isinstance(leaf, jax.Array) and not leaf.is_fully_addressable:
                return jnp.asarray(multihost_utils.process_allgather(leaf, tiled=True))
            return leaf

        return jax.tree_util.tree_map(whole, tree)

    def init(self, trainer, key):
        """A fresh train state of ``trainer``, created sharded: each weight directly in
        its sharding (``Program.init(key, shardings)``), the optimizer state inside
        ``jit``."""
        init_key, train_key = jax.random.split(key)
        stacked = trainer.stack_blocks
        params, state = jax.eval_shape(
            lambda k: trainer.program.init(k, stacked=stacked), init_key)
        params, state = trainer.program.init(
            init_key, (self.weight_shardings(params), self.weight_shardings(state)),
            stacked=stacked)
        abstract = jax.eval_shape(trainer._train_state, params, state, train_key)
        shardings = self.train_state_shardings(abstract)
        opt_state = jax.jit(trainer.init_opt_state,
                            out_shardings=shardings.opt_state)(params, state)
        return abstract._replace(
            params=params, state=state, opt_state=opt_state,
            step=jax.device_put(jnp.zeros((), jnp.int32), self.replicated),
            key=jax.device_put(train_key, self.replicated))


class OneDevice:
    """The placement of a run on one device (JAX's default): no sharding, so every step
    takes and returns its arrays as they are. Same interface as ``MeshPlacement``.

    >>> OneDevice().constrain_batch([1, 2])
    [1, 2]
    """

    mesh = None
    hints = None  # no activation sharding hints
    replicated_only = False

    def __init__(self):
        self.stacked_runs: list = []

    def __repr__(self) -> str:
        return "OneDevice()"

    def check_weight_paths(self, paths, model_name: str) -> None:
        """No sharding rules: nothing to check."""

    def packing_key(self, train_state) -> tuple:
        return ()

    def whole(self, tree, copy: bool):
        return jax.tree_util.tree_map(jnp.copy, tree) if copy else tree

    def local_rows(self, tree):
        return tree

    def constrain_state(self, ts):
        return ts

    def constrain_batch(self, tree):
        return tree

    def batch_split(self, x):
        return None

    def from_weights(self, trainer, params, state, key, opt_state=None, read_only=False):
        """The model's own arrays for steps that never donate them (``read_only``), else
        copies."""
        return trainer._train_state(params, state, key, opt_state, copy=not read_only)

    def init(self, trainer, key):
        init_key, train_key = jax.random.split(key)
        params, state = trainer.program.init(init_key, stacked=trainer.stack_blocks)
        return trainer._train_state(params, state, train_key)


def _copied(tree, shardings):
    """Copies of ``tree``'s arrays, each created in its sharding."""
    return jax.jit(lambda t: jax.tree_util.tree_map(jnp.copy, t), out_shardings=shardings)(tree)


class _BatchSplit(NodeHook):
    """Every node's outputs whose leading dimension is the batch's ``rows`` constrained
    to ``sharding``, the batch's (``ShardingRules(split_activations=True)``). It wraps
    each node's run, so repeated blocks still run as one scan (each block's outputs
    constrained alike)."""

    def __init__(self, sharding, rows: int):
        self.sharding, self.rows = sharding, rows

    def _constrain(self, leaf):
        shape = jnp.shape(leaf)
        if shape and shape[0] == self.rows and jnp.issubdtype(jnp.result_type(leaf),
                                                             jnp.number):
            return jax.lax.with_sharding_constraint(leaf, self.sharding)
        return leaf

    def wrap_node(self, node, path, run):
        def split(node, args, kwargs, input_masks):
            outputs, mask = run(node, args, kwargs, input_masks)
            return jax.tree_util.tree_map(self._constrain, outputs), mask

        return split

    def check_paths(self, paths, model_name: str) -> None:
        pass

    def check_all_used(self, model_name: str) -> None:
        pass


class _ActivationHints(RuleHook):
    """Constrains the outputs of the nodes whose ``"<layer path>/output"`` a hint matches
    (exact path, else the one pattern that fullmatches it: ``runtime.path_rules``) to the
    hinted sharding."""

    def __init__(self, hints: dict, mesh):
        self.mesh = mesh
        rules = []
        for name, spec in hints.items():
            if not name.endswith("/output") or not isinstance(spec, PartitionSpec):
                raise ValueError(f"An activation hint is (\"<layer path>/output\", "
                                 f"PartitionSpec), received ({name!r}, {spec!r}).")
            for entry in spec:
                for axis in (entry if isinstance(entry, tuple) else (entry,)):
                    if axis is not None and axis not in mesh.shape:
                        raise ValueError(f'Activation hint "{name}" names mesh axis {axis!r}, '
                                         f"but the mesh has axes {dict(mesh.shape)}.")
            rules.append((name[:-len("/output")], spec))
        self.rules = PathRules(rules, "activation hint", describe=lambda r: f"{r[0]}/output")

    def __bool__(self) -> bool:
        return bool(self.rules.rules)

    def after_node(self, node, path, args, kwargs, outputs):
        spec = self.value_for(path)
        if spec is None:
            return None

        def constrain(leaf):
            if len(spec) not in (0, jnp.ndim(leaf)):
                raise ValueError(f'Activation hint "{path}/output": {spec} has {len(spec)} '
                                 f"entries, but the output has rank {jnp.ndim(leaf)} (shape "
                                 f"{jnp.shape(leaf)}).")
            return jax.lax.with_sharding_constraint(leaf, NamedSharding(self.mesh, spec))

        return jax.tree_util.tree_map(constrain, outputs)

    def check_paths(self, paths, model_name: str) -> None:
        """Before anything runs: a hint matching none of the graph's node ``paths``."""
        if paths:
            self._refuse([pattern for pattern, _ in self.rules.unused(paths)], model_name)

    def check_all_used(self, model_name: str) -> None:
        """After a trace: a hint that matched no node is an error (a typo)."""
        self._refuse([pattern for pattern, _ in self.rules.rules
                      if pattern not in self.rules.used], model_name)

    def _refuse(self, unused, model_name):
        if unused:
            raise ValueError(f"Activation hints {[u + '/output' for u in unused]} name no "
                             f"layer call of model {model_name!r} (a nested model's layers "
                             "are \"<model>/<layer>/output\").")
