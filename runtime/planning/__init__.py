"""Planning a training run on a TPU pod (or any mesh) before it runs, from shapes alone.

``plan(model, topology="v5e-256", batch=...)`` compiles the step ``fit`` would run for
the topology's chips with XLA's TPU compiler (``libtpu``; no TPU needed) and returns a
``Plan``: whether it fits, bytes per chip, XLA's estimated step time, FLOPs, MFU and
collectives.
"""

from runtime.planning.flops import count_flops
from runtime.planning.plan import Plan, plan
from runtime.planning.topology import Topology, topology

__all__ = ["Plan", "Topology", "count_flops", "plan", "topology"]
