"""What every task shares: the `Task` base class, the registry and presets,
and the NumPy sequence helpers."""
