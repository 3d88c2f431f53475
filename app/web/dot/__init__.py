"""The dot-product lab: /dot (and /embed/dot) and POST /api/dot."""
