"""A leaf that inherits its fragments from a sibling or a recipe still names them: the model
table and the technique keys read the whole _base_ chain."""

from tests.utils import ROOT
from vitspec.config.chain import inherited_files
from vitspec.ledger.model_table import describe

ADE = ROOT / 'configs' / 'ade20k'
SPEC = ADE / 'upernet_vit-b14-dinov2-spec_f2p_8xb2-amp-160k_ade20k-512x512.py'
LIN4 = ROOT / 'configs' / 'nyu' / 'lin4_vit-s14-dinov2-spec_8xb2-38k_nyu-416x544.py'


def test_inherited_files_lists_the_chain_depth_first_each_once():
    files = [f.split('/configs/')[-1] for f in inherited_files(LIN4)]
    assert files[:3] == [
        'nyu/lin4_vit-s14-dinov2-spec_8xb2-38k_nyu-416x544.py',
        'nyu/lin4_vit-s14-dinov2_8xb2-38k_nyu-416x544.py',
        'nyu/lin1_vit-s14-dinov2_8xb2-38k_nyu-416x544.py',
    ]
    assert '_base_/models/techniques/specialized.py' in files
    assert len(files) == len(set(files))


def test_describe_finds_fragments_inherited_through_a_recipe():
    row = describe(SPEC)
    assert (row['technique'], row['backbone']) == ('specialized', 'vit-b14_dinov2')
    assert describe(LIN4)['backbone'] == 'vit-s14_dinov2'
