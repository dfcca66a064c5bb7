"""The end-to-end tier (a package, so its conftest and support module have names of their own)."""
