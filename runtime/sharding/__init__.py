"""Many devices: ``ShardingRules`` map weight paths to ``PartitionSpec``s on a JAX mesh."""

from runtime.sharding.rules import Placement, ShardingReport, ShardingRules

__all__ = ["Placement", "ShardingReport", "ShardingRules"]
