"""llama-harness: a tournament harness for L.L.A.M.A. bots speaking JSON lines."""

__version__ = "0.1.0"
