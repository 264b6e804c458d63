"""The layer base: ``Layer``, its ``Variable`` weights, ``InputSpec`` checks, call-argument
parsing, output-shape inference and automatic names."""
