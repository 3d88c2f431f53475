"""Hardware numbers: the matrix-multiply throughput benchmark and the data files the hardware page shows.

Imports numpy, the standard library and (lazily, where asked) torch; never the web layer.
"""
