"""read_trained: the one way tools read a trained checkpoint with its config. A config that
builds another model than the checkpoint was trained as is refused before any weight loads,
whichever tool asks (inference, export, the analysis tools)."""

import pytest

from tests.inference.demo_checkpoints import DEPTHER, SEGMENTER, save_demo_checkpoint
from tests.utils import ROOT
from vitspec.analysis.backbone_source import load_backbone
from vitspec.checkpoints.trained import read_trained
from vitspec.config.load import load_config
from vitspec.errors import ConfigError, SavedConfigMismatch

PLAIN = ROOT / 'configs/demo/fcn_specvit-tiny-p8-plain_2xb4-500it_demo-ade20k-128x128.py'
NO_ATTN_SKIP = (
    ROOT / 'configs/demo/fcn_specvit-tiny-p8-no-attention-skip_2xb4-500it_demo-ade20k-128x128.py'
)


def test_the_saved_config_builds_the_model_and_a_given_one_is_checked(tmp_path):
    checkpoint = save_demo_checkpoint(SEGMENTER, tmp_path / 'seg.pth')
    segmenter = load_config(str(SEGMENTER)).model.type
    assert read_trained(checkpoint).cfg.model.type == segmenter
    assert read_trained(checkpoint, str(SEGMENTER)).cfg.filename.endswith(SEGMENTER.name)
    with pytest.raises(SavedConfigMismatch, match='builds another model'):
        read_trained(checkpoint, str(DEPTHER))
    assert read_trained(checkpoint, str(DEPTHER), check_config=False).cfg.model.type != segmenter
    bare = save_demo_checkpoint(SEGMENTER, tmp_path / 'bare.pth', meta_cfg=False)
    with pytest.raises(ConfigError, match='holds no training config'):
        read_trained(bare)


def test_the_analysis_tools_refuse_weights_of_another_model(tmp_path):
    # the same parameters, another model: without the check, the analysis would measure a
    # plain backbone that nobody trained, without a word
    checkpoint = save_demo_checkpoint(NO_ATTN_SKIP, tmp_path / 'no_skip.pth')
    with pytest.raises(SavedConfigMismatch, match='skip'):
        load_backbone(f'{PLAIN}={checkpoint}')
    model, _ = load_backbone(f'{NO_ATTN_SKIP}={checkpoint}')
    assert not any(block.skip_attn for block in model.blocks)
    depth = save_demo_checkpoint(DEPTHER, tmp_path / 'depth.pth')
    with pytest.raises(SavedConfigMismatch):
        load_backbone(f'{SEGMENTER}={depth}')


# Where a checkpoint's saved config may be read or compared: the one function and its parts.
CONFIG_READERS = {'vitspec/checkpoints/trained.py', 'vitspec/config/saved.py'}


def test_no_tool_or_module_reads_a_saved_config_another_way():
    """A new loading tool that pairs a config with a checkpoint gets the check by calling
    read_trained; one that read meta.cfg itself would skip it (as the analysis tools and the
    inferencers did)."""
    import ast

    offenders = []
    for path in sorted([*ROOT.glob('vitspec/**/*.py'), *ROOT.glob('tools/*.py')]):
        relative = path.relative_to(ROOT).as_posix()
        if relative in CONFIG_READERS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            name = getattr(getattr(node, 'func', None), 'id', None) or getattr(
                getattr(node, 'func', None), 'attr', None
            )
            if isinstance(node, ast.Call) and name in ('saved_config', 'check_saved_config'):
                offenders.append(f'{relative}:{node.lineno}')
    assert not offenders, f'read the checkpoint with read_trained instead: {offenders}'
