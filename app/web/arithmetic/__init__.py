"""The arithmetic lab: one operation, or a chain of them, on stored values (/arithmetic, GET /api/arithmetic)."""
