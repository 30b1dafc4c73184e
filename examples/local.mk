# The bundled example (README: `kvlint check examples/`).
EXTRA_DIST += examples
