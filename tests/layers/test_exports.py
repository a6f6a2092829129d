"""CONTRIBUTING tells a new technique to export its module from vitspec/layers/__init__.py: every
torch module class defined under vitspec/layers is exported there."""

import importlib
import inspect
import pkgutil

import torch.nn as nn

import vitspec.layers as layers


def module_classes():
    for info in pkgutil.iter_modules(layers.__path__):
        module = importlib.import_module(f'{layers.__name__}.{info.name}')
        for name, obj in vars(module).items():
            if (
                inspect.isclass(obj)
                and issubclass(obj, nn.Module)
                and obj.__module__ == module.__name__
                and not name.startswith('_')
            ):
                yield name, obj


def test_every_layer_module_class_is_exported():
    defined = dict(module_classes())
    assert 'Block' in defined and 'SpecializedLinear' in defined
    missing = sorted(set(defined) - set(layers.__all__))
    assert not missing, f'not exported from vitspec/layers/__init__.py: {missing}'
    assert all(getattr(layers, name) is cls for name, cls in defined.items())
