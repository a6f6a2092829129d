"""The output policy every writing tool uses (fileio/outputs.py), shown on a tool built here
that declares its outputs and does nothing else: each rule comes without per-tool code."""

import argparse

import pytest

from vitspec.errors import OutputPathError
from vitspec.fileio import FILE, FOLDER, TREE, add_output, claim_outputs


def new_tool(argv):
    """A new writing tool: a PNG plot, an optional JSON file and a folder of pictures."""
    parser = argparse.ArgumentParser()
    parser.add_argument('inputs', nargs='+')
    add_output(parser, '--out', kind=FILE, suffixes=('.png',), required=True)
    add_output(parser, '--json', kind=FILE, suffixes=('.json',))
    add_output(parser, '--show-dir', kind=FOLDER)
    args = parser.parse_args(argv)
    return claim_outputs(args, inputs=args.inputs)


@pytest.fixture
def image(tmp_path):
    path = tmp_path / 'a.png'
    path.write_bytes(b'input')
    return path


def test_an_existing_file_is_refused_without_overwrite(tmp_path, image):
    out = tmp_path / 'plot.png'
    out.write_bytes(b'earlier result')
    with pytest.raises(OutputPathError, match='exists.*--overwrite'):
        new_tool([str(image), '--out', str(out)])
    assert new_tool([str(image), '--out', str(out), '--overwrite'])['out'] == out
    assert out.read_bytes() == b'earlier result'  # claiming writes nothing


def test_an_input_is_never_an_output_even_with_overwrite(tmp_path, image):
    with pytest.raises(OutputPathError, match='is the input'):
        new_tool([str(image), '--out', str(image), '--overwrite'])
    with pytest.raises(OutputPathError, match='holds the input'):
        new_tool([str(image), '--out', str(tmp_path / 'p.png'), '--show-dir', str(tmp_path),
                  '--overwrite'])  # fmt: skip
    assert image.read_bytes() == b'input'


def test_suffix_folder_and_parent_are_checked_before_the_work(tmp_path, image):
    with pytest.raises(OutputPathError, match=r'name a \.png file \(got no suffix\)'):
        new_tool([str(image), '--out', str(tmp_path / 'plot')])
    with pytest.raises(OutputPathError, match='is a folder: name a file in it'):
        new_tool([str(image), '--out', str(tmp_path)])
    with pytest.raises(OutputPathError, match='is a file, not a folder'):
        new_tool([str(image), '--out', str(image / 'plot.png')])
    with pytest.raises(OutputPathError, match=r'\.json'):
        new_tool([str(image), '--out', str(tmp_path / 'p.png'), '--json', str(tmp_path / 'p.txt')])


def test_two_outputs_of_one_run_may_not_be_one_file(tmp_path, image):
    with pytest.raises(OutputPathError, match='also the output of'):
        parser = argparse.ArgumentParser()
        add_output(parser, '--out', suffixes=('.png',))
        add_output(parser, '--cosine-out', suffixes=('.png',))
        args = parser.parse_args(['--out', str(tmp_path / 'x.png'), '--cosine-out',
                                  str(tmp_path / 'x.png')])  # fmt: skip
        claim_outputs(args)


def test_a_folder_with_files_is_refused_and_parents_are_created(tmp_path, image):
    shown = tmp_path / 'shown'
    shown.mkdir()
    (shown / 'earlier.png').write_bytes(b'x')
    with pytest.raises(OutputPathError, match='holds files'):
        new_tool([str(image), '--out', str(tmp_path / 'p.png'), '--show-dir', str(shown)])
    deep = tmp_path / 'new' / 'deeper' / 'plot.png'
    claimed = new_tool([str(image), '--out', str(deep), '--show-dir', str(tmp_path / 'pics')])
    assert deep.parent.is_dir() and claimed['show_dir'].is_dir() and not deep.exists()


def test_claiming_without_create_makes_nothing(tmp_path):
    parser = argparse.ArgumentParser()
    add_output(parser, '--out', kind=FOLDER)
    args = parser.parse_args(['--out', str(tmp_path / 'later' / 'out')])
    claim_outputs(args, create=False)
    assert not (tmp_path / 'later').exists()


def test_a_tree_may_hold_files_and_inputs_but_is_never_a_file(tmp_path, image):
    parser = argparse.ArgumentParser()
    parser.add_argument('src')
    add_output(parser, '--out', kind=TREE)
    for out in (tmp_path, tmp_path / 'new' / 'tree'):  # holds the input and a file / is new
        args = parser.parse_args([str(image), '--out', str(out)])
        assert claim_outputs(args, inputs=[image])['out'] == out and out.is_dir()
    with pytest.raises(OutputPathError, match='is a file, not a folder'):
        claim_outputs(parser.parse_args([str(image), '--out', str(image)]), inputs=[])
    assert image.read_bytes() == b'input'
