"""tools/prepare_data.py end to end, per dataset: on the real sample where one exists (a
synthetic VOC + SBD and the demo COCO panoptic zipped as COCO ships it otherwise), the configs'
own datasets read what it writes; SRC is byte- and time-identical afterwards; a second run writes
nothing; a damaged copy is refused, naming the file; --out inside SRC only adds files."""

import hashlib
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from mmengine.config import Config
from mmengine.registry import DefaultScope
from PIL import Image
from scipy.io import loadmat, savemat

import vitspec  # noqa: F401  (registers the datasets)
from tests.utils import ROOT, load_tool
from vitspec.demo import DATA_ROOTS, write_datasets

TOOL = load_tool('prepare_data')
CS_FRAME = 'frankfurt_000000_000294'
CS_GT = Path('gtFine/val/frankfurt')


def snapshot(folder: Path) -> dict:
    """rel path -> (content hash or link target, mtime) of everything under ``folder`` (a
    folder's mtime left out: adding a file beside SRC's changes it)."""
    state = {}
    for path in sorted(folder.rglob('*')):
        stat = path.lstat()
        if path.is_symlink():
            content = os.readlink(path)
        elif path.is_file():
            content = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            content, stat = 'folder', None
        state[path.relative_to(folder).as_posix()] = (content, stat and stat.st_mtime_ns)
    return state


def run(capsys, *argv) -> tuple:
    code = TOOL.main(['--no-progress', *map(str, argv)])
    return code, capsys.readouterr().out


def build(config: str, key: str, data_root: Path, index: int = None):
    """The config's dataset of ``key`` on ``data_root``, with its test pipeline."""
    cfg = Config.fromfile(ROOT / 'configs/_base_/datasets' / config)
    dataset = cfg[key].dataset
    if index is not None:
        dataset = dataset.datasets[index]
    dataset.data_root, dataset.pipeline = str(data_root), cfg.test_pipeline
    scope = 'mmdet' if 'coco' in config else 'mmseg'
    registry = __import__(f'{scope}.registry', fromlist=['DATASETS']).DATASETS
    with DefaultScope.overwrite_default_scope(scope):
        return registry.build(dataset)


@pytest.fixture
def cityscapes(realdata, tmp_path):
    src = tmp_path / 'src'
    shutil.copytree(realdata / 'cityscapes', src)
    (src / CS_GT / f'{CS_FRAME}_gtFine_labelTrainIds.png').unlink()  # as downloaded
    return src


def test_cityscapes_real_sample_is_read_by_the_config_and_src_is_unchanged(
    cityscapes, tmp_path, capsys
):
    before, out = snapshot(cityscapes), tmp_path / 'out'
    code, printed = run(capsys, 'cityscapes', cityscapes, '--out', out)
    assert code == 0 and 'written: 1 files' in printed and 'linked: 1 files' in printed
    assert snapshot(cityscapes) == before
    ours = np.asarray(Image.open(out / CS_GT / f'{CS_FRAME}_gtFine_labelTrainIds.png'))
    dataset = build('cityscapes_512x1024.py', 'val_dataloader', out)
    sample = dataset[0]['data_samples']
    assert len(dataset) == 1 and np.array_equal(sample.gt_sem_seg.data[0].numpy(), ours)
    # mmseg's train-id file of the sample was resized apart from its label-id file: where the
    # two differ (0.2% of pixels) its value is one of ours within 2 pixels, on a boundary
    theirs = np.asarray(Image.open(ROOT.parent / 'shared/realdata/cityscapes' / CS_GT
                                   / f'{CS_FRAME}_gtFine_labelTrainIds.png'))  # fmt: skip
    ys, xs = np.nonzero(ours != theirs)
    padded = np.pad(ours, 2, mode='edge')
    assert len(ys) / ours.size < 0.005
    assert all((padded[y : y + 5, x : x + 5] == theirs[y, x]).any() for y, x in zip(ys, xs))

    written = snapshot(out)
    code, printed = run(capsys, 'cityscapes', cityscapes, '--out', out)
    assert code == 0 and 'already there: 2 files' in printed and 'written:' not in printed
    assert snapshot(out) == written and snapshot(cityscapes) == before


def test_cityscapes_out_is_src_adds_the_train_ids_beside_and_changes_nothing(
    cityscapes, tmp_path, capsys
):
    before = snapshot(cityscapes)
    code, printed = run(capsys, 'cityscapes', cityscapes, '--out', cityscapes)
    assert code == 0 and 'written: 1 files' in printed
    after = snapshot(cityscapes)
    assert set(after) - set(before) == {f'{CS_GT}/{CS_FRAME}_gtFine_labelTrainIds.png'}
    assert all(after[k] == v for k, v in before.items())
    # the sample's own train ids (mmseg's, resized apart) differ: a file of SRC is never changed
    shutil.copy(ROOT.parent / 'shared/realdata/cityscapes' / CS_GT
                / f'{CS_FRAME}_gtFine_labelTrainIds.png', cityscapes / CS_GT)  # fmt: skip
    before = snapshot(cityscapes)
    code, printed = run(capsys, 'cityscapes', cityscapes, '--out', cityscapes, '--overwrite')
    assert code == 1 and 'labelTrainIds.png: a file of SRC' in printed
    assert snapshot(cityscapes) == before


def test_cityscapes_damaged_copy_names_the_file_and_the_ids(cityscapes, tmp_path, capsys):
    label_ids = cityscapes / CS_GT / f'{CS_FRAME}_gtFine_labelIds.png'
    ids = np.asarray(Image.open(label_ids)).copy()
    ids[0, :3] = 40  # no Cityscapes id
    Image.fromarray(ids).save(label_ids)
    code, printed = run(capsys, 'cityscapes', cityscapes, '--out', tmp_path / 'out')
    assert code == 1 and f'refused: {label_ids}: ids [40]' in printed
    shutil.rmtree(cityscapes / 'gtFine')
    with pytest.raises(SystemExit, match=r'gtFine is missing; .* should look like'):
        TOOL.main(['cityscapes', str(cityscapes), '--out', str(tmp_path / 'out')])


def voc_and_sbd(src: Path) -> Path:
    """A tiny VOC 2012 (a in train, b in val) and SBD (a, c in its train, d in its val)."""
    voc = src / 'VOCdevkit' / 'VOC2012'
    rng = np.random.default_rng(0)
    for folder in ('JPEGImages', 'SegmentationClass', 'ImageSets/Segmentation'):
        (voc / folder).mkdir(parents=True)
    for name in 'abcd':
        Image.fromarray(rng.integers(0, 255, (6, 8, 3), dtype=np.uint8)).save(
            voc / 'JPEGImages' / f'{name}.jpg'
        )
    for name in 'ab':
        Image.fromarray(rng.integers(0, 21, (6, 8), dtype=np.uint8)).convert('P').save(
            voc / 'SegmentationClass' / f'{name}.png'
        )
    (voc / 'ImageSets/Segmentation/train.txt').write_text('a\n')
    (voc / 'ImageSets/Segmentation/val.txt').write_text('b\n')
    sbd = src / 'benchmark_RELEASE' / 'dataset'
    (sbd / 'cls').mkdir(parents=True)
    for name in 'acd':
        classes = rng.integers(0, 21, (6, 8), dtype=np.uint8)
        savemat(
            sbd / 'cls' / f'{name}.mat',
            {'GTcls': {'Segmentation': classes, 'CategoriesPresent': np.unique(classes)}},
        )
    (sbd / 'train.txt').write_text('c\na\n')
    (sbd / 'val.txt').write_text('d\n')
    return voc


def test_voc_with_sbd_writes_what_the_configs_read(tmp_path, capsys):
    src, out = tmp_path / 'src', tmp_path / 'out'
    voc_and_sbd(src)
    before = snapshot(src)
    code, printed = run(capsys, 'voc', src, '--out', out)
    assert code == 0, printed
    assert (out / 'ImageSets/Segmentation/aug.txt').read_text() == 'c\nd\n'
    assert (out / 'ImageSets/Segmentation/trainaug.txt').read_text() == 'a\nc\nd\n'
    assert sorted(p.name for p in (out / 'SegmentationClassAug').iterdir()) == [
        'a.png',
        'c.png',
        'd.png',
    ]
    aug = build('voc12aug_512x512.py', 'train_dataloader', out, index=1)
    train = build('voc12aug_512x512.py', 'train_dataloader', out, index=0)
    val = build('voc12aug_512x512.py', 'val_dataloader', out)
    assert (len(aug), len(train), len(val)) == (2, 1, 1)
    # SBD's struct as mmseg's converter indexes it: our file has SBD's layout
    mat = loadmat(src / 'benchmark_RELEASE/dataset/cls/c.mat')['GTcls'][0]['Segmentation'][0]
    assert np.array_equal(aug[0]['data_samples'].gt_sem_seg.data[0].numpy(), mat)
    assert snapshot(src) == before
    written = snapshot(out)
    code, printed = run(capsys, 'voc', src, '--out', out)
    assert code == 0 and 'written:' not in printed and snapshot(out) == written


def test_voc_out_inside_src_adds_only_new_files(tmp_path, capsys):
    src = tmp_path / 'data'
    voc = voc_and_sbd(src)
    before = snapshot(src)
    code, printed = run(capsys, 'voc', src, '--out', voc)  # mmseg's place for them
    after = snapshot(src)
    assert code == 0 and 'linked:' not in printed
    assert all(after[k] == v for k, v in before.items())
    assert {k for k in set(after) - set(before) if not k.endswith('SegmentationClassAug')} == {
        f'VOCdevkit/VOC2012/{p}'
        for p in ('ImageSets/Segmentation/aug.txt', 'ImageSets/Segmentation/trainaug.txt',
                  'SegmentationClassAug/a.png', 'SegmentationClassAug/c.png',
                  'SegmentationClassAug/d.png')
    }  # fmt: skip


def test_voc_damaged_sbd_names_the_mat_file(tmp_path, capsys):
    src = tmp_path / 'src'
    voc_and_sbd(src)
    bad = src / 'benchmark_RELEASE/dataset/cls/c.mat'
    savemat(bad, {'GTcls': {'Segmentation': np.full((6, 8), 30, dtype=np.uint8)}})
    (src / 'benchmark_RELEASE/dataset/cls/d.mat').unlink()
    code, printed = run(capsys, 'voc', src, '--out', tmp_path / 'out')
    assert code == 1
    assert f'refused: {bad}: class ids [30] outside 0-20' in printed
    assert 'cls/d.mat: missing' in printed


@pytest.fixture
def coco_panoptic(tmp_path):
    """The demo COCO panoptic as COCO ships it: the PNGs of each split in a zip."""
    write_datasets(tmp_path / 'demo', ['coco'], 1, 2, 2)
    src = tmp_path / 'demo' / DATA_ROOTS['coco']
    for split in ('train2017', 'val2017'):
        folder = src / 'annotations' / f'panoptic_{split}'
        with zipfile.ZipFile(folder.with_suffix('.zip'), 'w') as archive:
            for png in sorted(folder.iterdir()):
                archive.write(png, f'panoptic_{split}/{png.name}')
        shutil.rmtree(folder)
    return src


def test_coco_panoptic_from_the_zips_is_read_by_the_config(coco_panoptic, tmp_path, capsys):
    before, out = snapshot(coco_panoptic), tmp_path / 'out'
    code, printed = run(capsys, 'coco-panoptic', coco_panoptic, '--out', out)
    assert code == 0, printed
    assert len(list((out / 'annotations/panoptic_val2017').iterdir())) == 2
    dataset = build('coco_panoptic_eomt_640x640.py', 'val_dataloader', out)
    infos = [dataset.get_data_info(i) for i in range(len(dataset))]
    assert len(infos) == 2 and all(Path(i['seg_map_path']).is_file() for i in infos)
    assert dataset[1]['inputs'].shape[0] == 3  # its image, through the link
    assert snapshot(coco_panoptic) == before
    written = snapshot(out)
    code, printed = run(capsys, 'coco-panoptic', coco_panoptic, '--out', out)
    assert code == 0 and 'written:' not in printed and snapshot(out) == written


def test_coco_panoptic_damaged_png_is_refused_naming_the_ids(coco_panoptic, tmp_path, capsys):
    archive_path = coco_panoptic / 'annotations/panoptic_val2017.zip'
    with zipfile.ZipFile(archive_path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    name = sorted(members)[0]
    rgb = np.asarray(Image.open(__import__('io').BytesIO(members[name]))).copy()
    rgb[:4, :4] = (99, 0, 0)  # segment id 99: not in the JSON
    buffer = __import__('io').BytesIO()
    Image.fromarray(rgb).save(buffer, format='PNG')
    members[name] = buffer.getvalue()
    with zipfile.ZipFile(archive_path, 'w') as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    out = tmp_path / 'out'
    code, printed = run(capsys, 'coco-panoptic', coco_panoptic, '--out', out)
    assert code == 1
    assert f'refused: {archive_path}:{name}: panoptic PNG' in printed and '[99]' in printed
    assert not (out / 'annotations' / name.replace('/', os.sep, 1)).exists()
    assert len(list((out / 'annotations/panoptic_val2017').iterdir())) == 1


def test_ade20k_checks_the_challenge_layout_and_names_the_full_release(realdata, tmp_path, capsys):
    code, printed = run(capsys, 'ade20k', realdata / 'ade20k')
    assert code == 0 and 'validation: 3 images, 3 annotations, 3 pairs' in printed
    assert 'training: ' in printed and 'missing' in printed
    with pytest.raises(SystemExit, match='full ADE20K release .* a different dataset'):
        TOOL.main(['ade20k', str(realdata / 'ade20k/full_format')])
    src = tmp_path / 'ADEChallengeData2016'
    shutil.copytree(realdata / 'ade20k/ADEChallengeData2016', src)
    (src / 'annotations/validation/ADE_val_00000002.png').unlink()
    before = snapshot(src)
    code, printed = run(capsys, 'ade20k', src)
    assert code == 1 and snapshot(src) == before
    assert f'{src}/images/validation/ADE_val_00000002.jpg: no annotation' in printed
