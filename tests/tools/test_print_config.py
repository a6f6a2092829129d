"""tools/print_config.py: the built config as Python, each value with the file it came from;
the same --cfg-options as tools/train.py; clear errors for a missing file or a bad key."""

import pytest
from mmengine.config import Config

from tests.utils import ROOT, load_tool
from vitspec.config.tree import plain

DEMO = 'configs/demo/fcn_specvit-tiny-p8{}_2xb4-500it_demo-ade20k-128x128.py'
SPEC = ROOT / DEMO.format('-spec')


@pytest.fixture(scope='module')
def tool():
    return load_tool('print_config')


def printed(tool, capsys, *args) -> str:
    tool.main([str(a) for a in args])
    return capsys.readouterr().out


def test_the_output_is_the_built_config_with_the_file_of_each_value(tool, capsys):
    out = printed(tool, capsys, SPEC)
    header, *lines = out.splitlines()
    assert 'built from 8 files, 2 levels of _base_ deep' in header
    namespace = {}
    exec('\n'.join(lines), {'dict': dict}, namespace)
    assert namespace == plain(Config.fromfile(str(SPEC)).to_dict(), keep_tuples=True)
    origin = {line.split(' = ')[0]: line.split('# from ')[-1] for line in lines if ' = ' in line}
    assert origin['technique'].endswith('configs/_base_/models/techniques/specialized.py')
    assert origin['model'].endswith('configs/_base_/models/specvit-tiny-p8_fcn.py')
    assert origin['randomness'].endswith(DEMO.format(''))
    assert any(
        line.strip().startswith('specialize=True,') and line.endswith(DEMO.format('-spec'))
        for line in lines
    )


def test_values_an_option_set_are_named_so(tool, capsys):
    out = printed(
        tool, capsys, SPEC, '--cfg-options', 'model.backbone.drop_path_rate=0.1', 'seed=3'
    )
    assert '        drop_path_rate=0.1,  # from --cfg-options' in out.splitlines()
    assert 'seed = 3  # from --cfg-options' in out.splitlines()


@pytest.mark.parametrize(
    'args, message',
    [
        (['configs/demo/no_such_config.py'], 'no_such_config.py: no such config file'),
        (['vitspec::demo/no_such_config.py'], 'no such config in'),
        ([SPEC, '--cfg-options', 'modle.backbone.x=1'], "did you mean 'model'?"),
        ([SPEC, '--cfg-options', 'model.backbone.embed_dims=abc'], 'expected a number'),
        ([SPEC, '--cfg-options', 'seed'], "'seed' is not KEY=VALUE"),
    ],
)
def test_errors_name_the_problem(tool, capsys, args, message):
    with pytest.raises(SystemExit) as exc:
        tool.main([str(a) for a in args])
    captured = capsys.readouterr()
    assert exc.value.code == 2 and not captured.out
    assert message in captured.err
