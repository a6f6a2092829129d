"""The version of the vitspec package."""

__version__ = '0.1.0'
