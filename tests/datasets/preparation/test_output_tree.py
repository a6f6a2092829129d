"""The output tree's rules: a file already there with the same content is kept, one that
differs is refused (replaced with overwrite, never in SRC), nothing goes into SRC through a
link, and an interrupted write's temporary is cleared by the next run."""

import os

import numpy as np

from vitspec.datasets.preparation.output_tree import OutputTree
from vitspec.datasets.preparation.report import KEPT, LINKED, REPLACED, WRITTEN

LABEL = np.arange(12, dtype=np.uint8).reshape(3, 4)


def test_same_content_is_kept_and_different_is_refused_unless_overwrite(tmp_path):
    src, out = tmp_path / 'src', tmp_path / 'out'
    src.mkdir()
    OutputTree(src, out).write_png('a/l.png', LABEL)
    mtime = (out / 'a/l.png').stat().st_mtime_ns
    tree = OutputTree(src, out)
    tree.write_png('a/l.png', LABEL)
    tree.write_png('a/l.png', LABEL + 1)
    assert tree.report.count(KEPT) == 1 and tree.report.changed == 0
    assert 'pass --overwrite' in tree.report.refused[0][1]
    assert (out / 'a/l.png').stat().st_mtime_ns == mtime
    tree = OutputTree(src, out, overwrite=True)
    tree.write_png('a/l.png', LABEL + 1)
    assert tree.report.count(REPLACED) == 1 and tree.report.ok


def test_links_are_kept_when_they_reach_the_same_file(tmp_path):
    src, out = tmp_path / 'src', tmp_path / 'out'
    src.mkdir()
    (src / 'x.jpg').write_bytes(b'image')
    tree = OutputTree(src, out)
    tree.link('x.jpg', src / 'x.jpg')
    assert os.readlink(out / 'x.jpg') == str(src / 'x.jpg') and tree.report.count(LINKED) == 1
    (out / 'y.jpg').write_bytes(b'image')  # a copy with the same bytes
    again = OutputTree(src, out)
    again.link('x.jpg', src / 'x.jpg')
    again.link('y.jpg', src / 'x.jpg')
    assert again.report.count(KEPT) == 2 and again.report.changed == 0
    OutputTree(src, src).link('x.jpg', src / 'x.jpg')  # out is SRC: the file itself
    assert (src / 'x.jpg').read_bytes() == b'image' and not (src / 'x.jpg').is_symlink()


def test_src_is_never_changed_nor_written_through_a_link(tmp_path):
    src, out = tmp_path / 'src', tmp_path / 'out'
    (src / 'gt').mkdir(parents=True)
    (src / 'gt' / 'list.txt').write_text('theirs\n')
    tree = OutputTree(src, src, overwrite=True)  # out is SRC: only new files
    tree.write_bytes('gt/list.txt', b'ours\n')
    tree.write_bytes('gt/new.txt', b'ours\n')
    assert (src / 'gt/list.txt').read_text() == 'theirs\n' and (src / 'gt/new.txt').exists()
    assert 'files of SRC are never changed' in tree.report.refused[0][1]
    out.mkdir()
    (out / 'gt').symlink_to(src / 'gt')  # out elsewhere, one of its folders a link into SRC
    tree = OutputTree(src, out)
    tree.write_bytes('gt/other.txt', b'ours\n')
    assert not (src / 'gt/other.txt').exists() and 'through a link' in tree.report.refused[0][1]


def test_an_interrupted_write_is_cleared_and_resumed(tmp_path):
    src, out = tmp_path / 'src', tmp_path / 'out'
    src.mkdir()
    (out / 'a').mkdir(parents=True)
    (out / 'a' / '.l.png.0a1b2c3d.tmp').write_bytes(b'half')  # a run killed mid-write
    tree = OutputTree(src, out)
    tree.write_png('a/l.png', LABEL)
    assert sorted(os.listdir(out / 'a')) == ['l.png'] and tree.report.count(WRITTEN) == 1
