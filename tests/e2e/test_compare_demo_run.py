"""tools/reproductions.py --compare on a real finished demo run: a 2-iteration training on the
procedural ADE20K-layout data, matched through its config dump to the row of a toy ledger that
names the demo config (demo configs are no rows of the real ledger)."""

import importlib.util
import json
import re
import shutil

import yaml

from tests.utils import ROOT, make_demo_data

CONFIG = 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
PUBLISHED = 1.5  # a toy value (mIoU %): the row only has to name the demo config
ROW = {
    'id': 'toy-demo-fcn',
    'paper': 'toy',
    'table': 'T1',
    'row': 'demo FCN',
    'metric': 'mIoU',
    'value': PUBLISHED,
    'value_source': 'toy',
    'config': CONFIG,
    'checkpoint': {'file': 'none', 'source': None},
    'convert': '-',
    'fields': {
        'model.decode_head.num_classes': {'value': 150, 'source': 'toy'},
        'train_dataloader.dataset.pipeline[type=RandomCrop].crop_size': {
            'value': [128, 128],
            'source': 'toy',
        },
    },
}


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def toy_ledger(root, data):
    """A checkout holding only a one-row ledger for the demo config, and that config (with its
    _base_ files) reading its data from ``data``: the row's data, which --compare checks."""
    (root / 'configs' / 'demo').mkdir(parents=True)
    shared = {'datasets': ['demo'], 'sources': {'toy': 'a toy source'}}
    (root / 'configs' / 'reproductions.yaml').write_text(yaml.safe_dump(shared))
    (root / 'configs' / 'demo' / 'reproductions.yaml').write_text(yaml.safe_dump({'rows': [ROW]}))
    shutil.copytree(ROOT / 'configs' / '_base_', root / 'configs' / '_base_')
    config = root / CONFIG
    shutil.copy(ROOT / CONFIG, config)
    with config.open('a') as f:
        for split in ('train', 'val', 'test'):
            f.write(f"{split}_dataloader = dict(dataset=dict(data_root='{data}'))\n")
    return root / 'configs' / 'reproductions.yaml'


def test_compare_prints_published_measured_and_difference_of_a_demo_run(tmp_path, capsys):
    data = make_demo_data(tmp_path / 'data', 'ade20k', 4, 2)
    work = tmp_path / 'work'
    options = [f'{split}.dataset.data_root={data}' for split in ('train', 'val', 'test')]
    options = [o.replace('.dataset', '_dataloader.dataset', 1) for o in options]
    load('train_tool', ROOT / 'tools' / 'train.py').main(
        [
            CONFIG,
            '--work-dir',
            str(work),
            '--cfg-options',
            *options,
            'train_dataloader.batch_size=2',
            'train_cfg.max_iters=2',
            'train_cfg.val_interval=2',
            'default_hooks.checkpoint.interval=2',
        ]
    )
    (scalars,) = work.glob('*/vis_data/scalars.json')
    logged = [json.loads(line) for line in scalars.read_text().splitlines()]
    miou = [r['mIoU'] for r in logged if 'mIoU' in r][-1]
    capsys.readouterr()

    tool = load('reproductions_tool', ROOT / 'tools' / 'reproductions.py')
    assert (
        tool.main(
            ['--ledger', str(toy_ledger(tmp_path / 'checkout', data)), '--compare', str(work)]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert re.split(r'\s{2,}', out[-1]) == [
        'work',
        'toy-demo-fcn',
        'mIoU',
        '1.500',  # four significant digits of the published value, for all three
        f'{miou:.3f}',
        f'{miou - PUBLISHED:+.3f}',
        'validation at iter 2',
    ], '\n'.join(out)
