"""Importing this package registers its modules."""
from .checked_loading import (  # noqa: F401
    CheckedLoadAnnotations, CheckedLoadImageFromFile, DataFileError)
