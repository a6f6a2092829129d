"""mmengine visualizer backends (TensorBoard, Weights & Biases) added to a config's visualizer,
besides its local one (``tools/train.py --vis-backend tensorboard wandb``).

A flag rather than a ``_base_`` fragment because mmengine refuses a key (``visualizer``) defined
in two bases, and every runtime base already defines it. The same in a leaf config file:
``visualizer = dict(vis_backends=[dict(type='LocalVisBackend'),
dict(type='TensorboardVisBackend')])``.
The packages (tensorboard, wandb) are optional: a missing one is reported before training starts.
"""

import importlib.util
import os
import os.path as osp

BACKENDS = {  # flag name: (mmengine backend type, module it needs, how to get it)
    'tensorboard': ('TensorboardVisBackend', 'tensorboard', 'pip install tensorboard'),
    'wandb': ('WandbVisBackend', 'wandb', 'pip install wandb, then wandb login'),
}


def backend_cfg(name: str, experiment: str) -> dict:
    kind, module, how = BACKENDS[name]
    if importlib.util.find_spec(module) is None:
        raise ImportError(
            f'--vis-backend {name} needs the {module} package, which this '
            f'environment does not have ({how})'
        )
    if name == 'wandb':  # project from WANDB_PROJECT (default vitspec), run named after config
        init = dict(project=os.environ.get('WANDB_PROJECT', 'vitspec'), name=experiment)
        return dict(type=kind, init_kwargs=init)
    return dict(type=kind)


def add_vis_backends(cfg, names, config_path: str):
    """Append the named backends to cfg.visualizer.vis_backends (LocalVisBackend stays)."""
    if not names:
        return cfg
    experiment = osp.splitext(osp.basename(config_path))[0]
    backends = list(cfg.visualizer.get('vis_backends') or [dict(type='LocalVisBackend')])
    present = {b['type'] for b in backends}
    for name in names:
        new = backend_cfg(name, experiment)
        if new['type'] not in present:
            backends.append(new)
            present.add(new['type'])
    cfg.visualizer.vis_backends = backends
    cfg.vis_backends = backends
    return cfg
