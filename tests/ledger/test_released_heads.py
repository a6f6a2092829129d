"""configs/<dataset>/released_heads.yaml: every DINOv2 row of ADE20K, VOC, NYU and KITTI has its
released head, and DINOv3's ADE20K Mask2Former row its segmentor, named as the releasing code names
them, with a converter into its config's head; docs/reproduce.md lists the two commands and the
published number."""

import re
from pathlib import Path, PurePosixPath

import pytest

from tests.utils import ROOT, load_tool
from vitspec.checkpoints.layouts.head_formats import ADAPTER_FORMATS, HEAD_FORMATS
from vitspec.config.load import load_config
from vitspec.errors import LedgerError
from vitspec.ledger.released_heads import read_released_heads
from vitspec.ledger.rows import load_ledger

# the rows of DINOv2's own protocols on the datasets it released heads for
RELEASED_ROWS = re.compile(r'^dinov2-(ade20k|voc|nyu|kitti)-(lin|ms|lin1|lin4|dpt)-vit[sblg]14$')
# our dataset folder -> DINOv2's dataset name in its file names
DATASET_NAMES = {'voc': 'voc2012'}
# our config name's prefix -> DINOv2's head type in its file names (semantic_segmentation.ipynb
# HEAD_TYPE; hub/depthers.py: linear{4 if layers == 4}, dpt)
HEAD_TYPES = {
    'linear': 'linear',
    'linear4-ms': 'ms',
    'lin1': 'linear',
    'lin4': 'linear4',
    'dpt': 'dpt',
}


@pytest.fixture(scope='module')
def ledger():
    return load_ledger(ROOT / 'configs' / 'reproductions.yaml')


def released_file_of(config: str) -> str:
    """The released head file DINOv2's code names for the model and protocol of ``config``."""
    path = Path(config)
    prefix, arch = re.match(r'([\w-]+?)_vit-([sblg])14-dinov2_', path.name).groups()
    dataset = DATASET_NAMES.get(path.parent.name, path.parent.name)
    return f'dinov2_vit{arch}14_{dataset}_{HEAD_TYPES[prefix]}_head.pth'


def test_every_dinov2_row_has_its_released_head(ledger):
    rows = {r['id']: r for r in ledger['rows']}
    heads = {
        h['row']: h
        for h in ledger['released_heads']
        if h['format'] == 'dinov2' and not h['row'].startswith('dinov2-ade20k-m2f')
    }
    expected = {rid for rid in rows if RELEASED_ROWS.match(rid)}
    assert expected and set(heads) == expected
    for rid, head in heads.items():
        assert PurePosixPath(head['url']).name == released_file_of(rows[rid]['config']), rid
        assert head['url'].startswith('https://dl.fbaipublicfiles.com/dinov2/dinov2_vit')


def test_dinov3s_segmentor_is_the_file_its_hub_loads(ledger):
    """hub/segmentors.py loads {_DINOV3_BASE_URL}/{backbone}/{backbone}_ade20k_m2f_head-{hash}.pth
    with hash bf307cb1; its adapter goes into the config's ViTAdapter."""
    rows = {r['id']: r for r in ledger['rows']}
    (head,) = [h for h in ledger['released_heads'] if h['format'] == 'dinov3']
    assert head['row'] == 'dinov3-ade20k-m2f-vit7b16'
    assert head['url'] == (
        'https://dl.fbaipublicfiles.com/dinov3/dinov3_vit7b16/'
        'dinov3_vit7b16_ade20k_m2f_head-bf307cb1.pth'
    )
    cfg = load_config(str(ROOT / rows[head['row']]['config']))
    assert (head['format'], cfg.model.backbone.type) in ADAPTER_FORMATS


def test_dinov2s_segmentor_is_the_file_its_notebook_loads(ledger):
    """notebooks/semantic_segmentation.ipynb: {DINOV2_BASE_URL}/dinov2_vitg14/
    dinov2_vitg14_ade20k_m2f.pth, the ViT-Adapter + Mask2Former segmentor with its ViT."""
    rows = {r['id']: r for r in ledger['rows']}
    (head,) = [h for h in ledger['released_heads'] if h['row'].startswith('dinov2-ade20k-m2f')]
    assert head['url'] == (
        'https://dl.fbaipublicfiles.com/dinov2/dinov2_vitg14/dinov2_vitg14_ade20k_m2f.pth'
    )
    cfg = load_config(str(ROOT / rows[head['row']]['config']))
    assert (head['format'], cfg.model.backbone.type) in ADAPTER_FORMATS


def test_every_released_head_has_a_converter_into_its_config(ledger):
    rows = {r['id']: r for r in ledger['rows']}
    for head in ledger['released_heads']:
        cfg = load_config(str(ROOT / rows[head['row']]['config']))
        if head['format'] == 'dinov3-detr':  # a whole detector head: PlainDETR's own format
            assert cfg.model.type == 'PlainDETR', head['row']
            continue
        assert (head['format'], cfg.model.decode_head.type) in HEAD_FORMATS, head['row']


def test_the_doc_lists_both_commands_and_the_published_number(ledger):
    lines = '\n'.join(load_tool('reproductions').released_heads_section(ledger))
    row = next(r for r in ledger['rows'] if r['id'] == 'dinov2-nyu-dpt-vitl14')
    converted = 'work_dirs/released/dinov2-nyu-dpt-vitl14.pth'
    assert (
        f'python tools/convert_checkpoint.py dinov2_vitl14_nyu_dpt_head.pth {converted} '
        f'--format dinov2 --head-config {row["config"]}'
    ) in lines
    assert f'tools/dist_test.sh {row["config"]} {converted} 8' in lines
    published = 'not found' if row['value'] == 'not found' else f'RMSE {row["value"]}'
    assert f'| dinov2-nyu-dpt-vitl14 | {published} |' in lines


def test_an_entry_of_an_unknown_row_is_refused(tmp_path):
    (tmp_path / 'nyu').mkdir()
    (tmp_path / 'nyu' / 'released_heads.yaml').write_text(
        'heads:\n- {row: dinov2-nyu-lin9-vits14, url: u, format: dinov2, source: s}\n'
    )
    ledger = dict(datasets=['nyu'], rows=[], sources={'s': 'somewhere'})
    with pytest.raises(LedgerError, match="no ledger row 'dinov2-nyu-lin9-vits14'"):
        read_released_heads(tmp_path / 'reproductions.yaml', ledger)


def test_dinov3s_detector_is_the_file_its_hub_loads(ledger):
    """hub/detectors.py loads {_DINOV3_BASE_URL}/{backbone}/{backbone}_coco2017_detr_head-{hash}.pth
    with hash b0235ff7 into its PlainDETRReParam."""
    (head,) = [h for h in ledger['released_heads'] if h['format'] == 'dinov3-detr']
    assert head['row'] == 'dinov3-coco-plain-detr-vit7b16'
    assert head['url'] == (
        'https://dl.fbaipublicfiles.com/dinov3/dinov3_vit7b16/'
        'dinov3_vit7b16_coco2017_detr_head-b0235ff7.pth'
    )
