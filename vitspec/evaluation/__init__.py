"""Importing this package registers its modules."""
