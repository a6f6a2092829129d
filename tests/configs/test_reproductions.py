"""The reproduction ledger: every published protocol field holds in the built config, a changed
field is caught, every result the ledger promises is there, and docs/reproduce.md follows it."""

import copy
import re
from pathlib import Path

import pytest
from mmengine.config import Config

from tests.utils import ROOT, load_tool
from vitspec.config.location import config_dir
from vitspec.config.tree import get, set_value
from vitspec.ledger.rows import (
    NOT_APPLICABLE,
    NOT_FOUND,
    check_row,
    config_precision,
    expected,
    load_ledger,
    row_fields,
)

LEDGER = load_ledger()
ROWS = {row['id']: row for row in LEDGER['rows']}
SIZES = ('s', 'b', 'l', 'g')
REQUIRED = [  # the published results the ledger must hold
    *(
        f'dinov2-{d}-{p}-vit{s}14'
        for d in ('ade20k', 'cityscapes', 'voc')
        for p in ('lin', 'ms')
        for s in SIZES
    ),
    *(
        f'dinov2-{d}-{p}-vit{s}14'
        for d in ('nyu', 'kitti')
        for p in ('lin1', 'lin4', 'dpt')
        for s in SIZES
    ),
    'dinov3-voc-lin-vit7b16',
    'mae-ade20k-upernet-vitb16',
    'mae-ade20k-upernet-vitl16',
    *(f'vitdet-coco-maskrcnn-vit{s}-mae-{m}' for s in 'bl' for m in ('box', 'mask')),
    *(f'dinov3-{d}-lin-vit{s}' for d in ('ade20k', 'nyu') for s in ('s16', 'b16', 'l16')),
    *(f'dinov3-{d}-lin-dinov2-vitg14' for d in ('ade20k', 'cityscapes', 'voc', 'nyu', 'kitti')),
]


def test_the_ledger_is_one_file_per_dataset_folder_beside_its_configs():
    files = {file.parent.name for file in config_dir().glob('*/reproductions.yaml')}
    folders = {Path(row['config']).parent.name for row in LEDGER['rows']}
    assert files == set(LEDGER['datasets']) == folders


@pytest.mark.parametrize('row_id', REQUIRED)
def test_the_ledger_holds_every_promised_result(row_id):
    assert row_id in ROWS


def test_the_seeds_vit_l_specialization_results_are_rows_with_their_twins():
    """The specialization summary's ViT-L numbers (ADE20K 46.2 -> 48.4, Cityscapes 65.2 ->
    67.4 mIoU), plain and specialized twins; its depth claims as rows without a value."""
    published = {
        'spec2602-ade20k-lin-vitl14-plain': 46.2,
        'spec2602-ade20k-lin-vitl14-spec': 48.4,
        'spec2602-cityscapes-lin-vitl14-plain': 65.2,
        'spec2602-cityscapes-lin-vitl14-spec': 67.4,
        **{
            f'spec2602-{d}-lin4-vitl14-{k}': NOT_FOUND
            for d in ('nyu', 'kitti')
            for k in ('plain', 'spec')
        },
        **{f'spec2602-coco-maskrcnn-vitl16-{k}-box': NOT_FOUND for k in ('plain', 'spec')},
    }
    for row_id, value in published.items():
        row = ROWS[row_id]
        assert row['value'] == value and '2602.08626' in row['paper'], row_id
        assert row.get('value_source', 'spec2602-summary') == 'spec2602-summary'
        technique = row['config'].split('-dinov2-')[1].split('_')[0]
        assert technique in row_id.split('-') and 'vit-l1' in row['config']
        plain, spec = (row['config'].replace(f'-{technique}_', f'-{k}_') for k in ('plain', 'spec'))
        assert {plain, spec} <= {r['config'] for r in LEDGER['rows']}


def test_the_layer_specialization_comparison_is_in_the_ledger():
    rows = [r for r in LEDGER['rows'] if '2602.08626' in r['paper']]
    configs = {r['config'] for r in rows}
    assert any('-spec' in c for c in configs) and any('-spec' not in c for c in configs)


@pytest.mark.parametrize('row_id', sorted(ROWS))
def test_built_config_matches_every_published_field(row_id):
    assert check_row(LEDGER, ROWS[row_id]) == []


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value * 2 + 1
    if isinstance(value, (list, tuple)):
        return [*value, value[-1]] if value else [1]
    return f'{value}-changed'


def test_a_changed_field_fails_its_row():
    """Each protocol's fields, changed one at a time in the built config of its first row."""
    checked = 0
    for pid in LEDGER['protocols']:
        row = next((r for r in LEDGER['rows'] if r.get('protocol') == pid), None)
        if row is None:
            continue
        cfg = Config.fromfile(ROOT / row['config'])
        for name, spec in row_fields(LEDGER, row).items():
            if expected(spec) in (NOT_FOUND, NOT_APPLICABLE):
                continue
            mutated = copy.deepcopy(cfg)
            set_value(mutated, name, _changed(get(cfg, name)))
            problems = check_row(LEDGER, row, mutated)
            assert any(
                re.match(rf'{re.escape(row["id"])}: {re.escape(name)} ', p) for p in problems
            ), (name, problems)
            checked += 1
    assert checked > 100


def test_a_not_applicable_field_fails_its_row_when_the_config_has_it():
    """DINOv2 ViT-g/14 in DINOv3's protocol: the protocol's RoPE base is no field of its model."""
    row = ROWS['dinov3-ade20k-lin-dinov2-vitg14']
    assert row_fields(LEDGER, row)['model.backbone.rope.base']['value'] == NOT_APPLICABLE
    cfg = Config.fromfile(ROOT / row['config'])
    assert check_row(LEDGER, row, cfg) == []
    cfg.model.backbone.rope = dict(base=100.0)
    assert check_row(LEDGER, row, cfg) == [
        f'{row["id"]}: model.backbone.rope.base = 100.0 in {row["config"]}, '
        'ledger says not applicable (dinov2-backbones)'
    ]


def test_docs_reproduce_md_follows_the_ledger():
    tool = load_tool('reproductions')
    assert (ROOT / 'docs' / 'reproduce.md').read_text() == tool.render_doc(LEDGER), (
        'run python tools/reproductions.py'
    )


def test_every_row_says_where_its_value_and_checkpoint_come_from():
    for row in LEDGER['rows']:
        assert row['value'] == NOT_FOUND or row['value_source'] in LEDGER['sources']
        released = row['checkpoint']['file'] != 'not released'
        # a released file goes through our converter, after a step of its own where it needs
        # one (EoMT's DINOv2-L with registers: timm resamples its patch embedding to 16 first)
        assert ('python tools/convert_checkpoint.py ' in row['convert']) == released
        assert 'pretrain/' in row['convert']
        backbone = Config.fromfile(ROOT / row['config']).model.backbone
        init = backbone.get('vit', backbone).init_cfg  # a ViT-Adapter's: its ViT's
        assert init.checkpoint in row['convert'], (row['id'], init.checkpoint)


def test_the_published_precision_is_checked_against_the_built_config():
    """DINOv3's adapter runs its frozen 7B ViT under bfloat16 autocast (dinov3_adapter.py): the
    row says bf16 and the leaf must run it so; EoMT trains in Lightning's '16-mixed'."""
    row = ROWS['dinov3-ade20k-m2f-vit7b16']
    assert expected(row['precision']) == 'bf16'
    cfg = Config.fromfile(ROOT / row['config'])
    assert config_precision(cfg) == 'bf16' and check_row(LEDGER, row, cfg) == []
    cfg.model.backbone.vit_autocast = None
    problem = f'{row["id"]}: precision = {"fp32"!r} in {row["config"]}, ledger says {"bf16"!r}'
    assert check_row(LEDGER, row, cfg) == [f'{problem} (dinov3-m2f-code)']
    for row_id in ('eomt-ade20k-semantic-vitl16', 'eomt-cityscapes-semantic-vitl16'):
        cfg = Config.fromfile(ROOT / ROWS[row_id]['config'])
        assert expected(ROWS[row_id]['precision']) == config_precision(cfg) == 'fp16'
        cfg.optim_wrapper.dtype = 'bfloat16'
        assert check_row(LEDGER, ROWS[row_id], cfg)
