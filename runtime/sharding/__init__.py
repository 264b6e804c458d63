"""Many devices: ``ShardingRules`` map weight paths to ``PartitionSpec``s on a JAX mesh."""

from runtime.sharding.rules import LookupRules, Placement, ShardingReport, ShardingRules

__all__ = ["LookupRules", "Placement", "ShardingReport", "ShardingRules"]
