"""The floor: leaf helpers every layer may use (constants, names, durations, YAML sources,
placeholders, suggestions). Nothing here imports another layer of the package."""
