"""The library's version, in the foundation so that every layer (the citation record too) reads it."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
