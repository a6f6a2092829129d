"""A leaf that inherits its fragments from a sibling or a recipe still names them: the model
table and the technique keys read the whole _base_ chain."""

from tests.utils import ROOT
from vitspec.config.chain import chain_depth, inherited_files
from vitspec.ledger.model_table import describe

ADE = ROOT / 'configs' / 'ade20k'
SPEC = ADE / 'upernet_vit-b14-dinov2-spec_f2p_8xb2-amp-160k_ade20k-512x512.py'
LIN4 = ROOT / 'configs' / 'nyu' / 'lin4_vit-s14-dinov2-spec_8xb2-38k_nyu-416x544.py'


def test_inherited_files_lists_the_chain_depth_first_each_once():
    files = [f.split('/configs/')[-1] for f in inherited_files(LIN4)]
    assert files[:3] == [
        'nyu/lin4_vit-s14-dinov2-spec_8xb2-38k_nyu-416x544.py',
        'nyu/lin4_vit-s14-dinov2_8xb2-38k_nyu-416x544.py',
        '_base_/models/backbones/vit-s14_dinov2.py',
    ]
    assert '_base_/models/techniques/specialized.py' in files
    assert len(files) == len(set(files))


def test_describe_finds_fragments_inherited_through_a_recipe():
    row = describe(SPEC)
    assert (row['technique'], row['backbone']) == ('specialized', 'vit-b14_dinov2')
    assert describe(LIN4)['backbone'] == 'vit-s14_dinov2'


def test_chain_depth_counts_the_longest_path_of_base_links(tmp_path):
    (tmp_path / 'a.py').write_text('x = 1\n')
    (tmp_path / 'b.py').write_text("_base_ = './a.py'\n")
    (tmp_path / 'c.py').write_text("_base_ = ['./a.py', './b.py']\n")
    depths = [chain_depth(tmp_path / f'{name}.py') for name in 'abc']
    assert depths == [0, 1, 2]
    assert chain_depth(LIN4) == 4  # leaf, its plain sibling, recipe, depth_linear, depth_estimator
