"""The XLA flags the test runs compile with: without XLA:CPU's backend optimisations (the
suite compiles thousands of small programs; about a third faster than -O1). Every program of
a run, Keras's included, compiles alike, so the two sides of each comparison do; the
benchmarks run with XLA's defaults."""

FAST_COMPILE = ("--xla_backend_optimization_level=0 --xla_cpu_use_fusion_emitters=false "
                "--xla_cpu_parallel_codegen_split_count=1")


def with_fast_compile(xla_flags: str) -> str:
    """``xla_flags`` with ``FAST_COMPILE`` added, unless an optimisation level is set."""
    if "xla_backend_optimization_level" in xla_flags:
        return xla_flags
    return f"{xla_flags} {FAST_COMPILE}".strip()
