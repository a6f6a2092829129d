"""Split lists of the depth datasets: reading BTS's format, ``--split-file`` values, finding a
list in SRC, and the digest that tells a standard list from another."""

import pytest

from vitspec.datasets.preparation.depth_splits import (
    find_split_lists,
    list_digest,
    read_split_list,
    split_file_args,
)
from vitspec.errors import ConfigError, DataFileError

SPLITS = ('train', 'test')


def write(path, text):
    path.write_text(text)
    return path


def test_lines_lose_leading_slashes_and_none_depth(tmp_path):
    path = write(tmp_path / 'l.txt', '/a/rgb_1.jpg /a/d_1.png 518.8\n\nb/x.png None 721.5\n')
    first, second = read_split_list(path)
    assert (first.where, first.image, first.depth, first.focal) == (
        'l.txt:1',
        'a/rgb_1.jpg',
        'a/d_1.png',
        '518.8',
    )
    assert second.where == 'l.txt:3' and second.depth is None
    assert second.text == 'b/x.png None 721.5'


def test_a_bad_line_is_named(tmp_path):
    path = write(tmp_path / 'l.txt', 'a.jpg a.png 1\na.jpg a.png\n')
    with pytest.raises(DataFileError, match=r'l\.txt:2: .*<image> <depth> <focal>'):
        read_split_list(path)
    with pytest.raises(DataFileError, match='names no sample'):
        read_split_list(write(tmp_path / 'empty.txt', '\n'))


def test_digest_ignores_slashes_final_newline_and_focal(tmp_path):
    a = read_split_list(write(tmp_path / 'a.txt', '/s/1.jpg /s/1.png 518.8579\n/s/2.jpg None 5'))
    b = read_split_list(write(tmp_path / 'b.txt', 's/1.jpg s/1.png 518.86\ns/2.jpg None 5\n'))
    c = read_split_list(write(tmp_path / 'c.txt', 's/2.jpg None 5\ns/1.jpg s/1.png 518.86\n'))
    assert list_digest(a) == list_digest(b) != list_digest(c)


def test_split_file_values(tmp_path):
    train = write(tmp_path / 'frames.txt', 'x')
    test = write(tmp_path / 'nyu_test.txt', 'x')
    assert split_file_args([f'train={train}', str(test)], SPLITS) == {'train': train, 'test': test}
    with pytest.raises(ConfigError, match='SPLIT=FILE'):
        split_file_args([str(train)], SPLITS)  # the name says no split
    with pytest.raises(ConfigError, match='two lists for test'):
        split_file_args([str(test), f'test={train}'], SPLITS)
    with pytest.raises(DataFileError, match='is not a file'):
        split_file_args([f'test={tmp_path / "gone.txt"}'], SPLITS)


def test_lists_are_found_in_src_or_given(tmp_path):
    (tmp_path / 'nyu').mkdir()
    found = write(tmp_path / 'nyu/nyu_test.txt', 'x')
    given = tmp_path / 'mine.txt'
    names = {'train': ('nyu_train.txt',), 'test': ('nyu_test.txt',)}
    lists, notes = find_split_lists(tmp_path, {}, names, ('', 'nyu'))
    assert lists == {'test': found}
    assert len(notes) == 1 and notes[0].startswith('train: no split list')
    lists, notes = find_split_lists(tmp_path, {'train': given}, names, ('', 'nyu'))
    assert lists == {'train': given, 'test': found} and not notes
    with pytest.raises(DataFileError, match='nyu_test.txt'):
        find_split_lists(tmp_path, {}, names, ('',))
