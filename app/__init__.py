"""Precision Lab: an interactive lab for number precision formats and mixed-precision training."""
