"""Figures of the global calibration checks and of the local tests (matplotlib imported lazily)."""
