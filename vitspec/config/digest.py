"""A built leaf config as canonical JSON and its sha256, the record behind
tests/configs/config_digests.json: a config refactor must leave every built config unchanged.

Canonical: keys sorted, tuples kept apart from lists (mmengine keeps both, and a model may treat
them differently), anything JSON cannot hold written as its repr. Built configs hold no file
names or absolute paths, so a digest is the same in any checkout.
"""

import hashlib
import json
from pathlib import Path

from mmengine.config import Config

from vitspec.config.location import DATASETS
from vitspec.config.tree import canonical

LEAF_FOLDERS = tuple(folder for folder, _ in DATASETS)


def leaf_configs(configs_dir: Path) -> list:
    """The runnable configs: every ``<dataset folder>/*.py`` (``_base_`` holds fragments)."""
    return sorted(p for folder in LEAF_FOLDERS for p in (Path(configs_dir) / folder).glob('*.py'))


def built_config(path) -> dict:
    """``Config.fromfile(path).to_dict()``; ``custom_imports`` are not imported (the dict is
    the same)."""
    return Config.fromfile(str(path), import_custom_modules=False).to_dict()


def config_digest(cfg: dict) -> str:
    text = json.dumps(canonical(cfg), sort_keys=True, separators=(',', ':'))
    return hashlib.sha256(text.encode()).hexdigest()


def leaf_digests(configs_dir: Path) -> dict:
    """``{'ade20k/<name>.py': sha256}`` for every leaf config under ``configs_dir``."""
    return {
        p.relative_to(configs_dir).as_posix(): config_digest(built_config(p))
        for p in leaf_configs(configs_dir)
    }
