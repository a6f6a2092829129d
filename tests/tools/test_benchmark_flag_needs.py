"""tools/benchmark.py refuses a flag that acts only with another one when that one is missing,
before any model is built or file written."""

import pytest

from tests.utils import load_tool

benchmark = load_tool('benchmark')


@pytest.mark.parametrize(
    'argv, flag, need',
    [
        (['--models', 'timm', '--mmcv-kernels', 'compiled'], '--mmcv-kernels', '--config'),
        (['--preset', 'toy', '--mmcv-kernels', 'torchvision'], '--mmcv-kernels', '--config'),
        (['--models', 'timm', '--cfg-options', 'model.x=1'], '--cfg-options', '--config'),
        (['--models', 'timm', '--data', 'realdata'], '--data', '--pipelines'),
        (['--preset', 'toy', '--calls', '3'], '--calls', '--pipelines'),
    ],
)
def test_a_flag_without_the_one_it_acts_with_is_refused(argv, flag, need, tmp_path, capsys):
    out = tmp_path / 'b.json'
    with pytest.raises(SystemExit) as exit_:
        benchmark.main([*argv, '--out', str(out)])
    assert exit_.value.code == 2
    assert f'{flag} acts only with {need}' in capsys.readouterr().err
    assert not out.exists()
