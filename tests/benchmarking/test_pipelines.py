"""The pipeline benchmark at toy sizes: what it compares and what it reports, never its times."""

import pytest

import vitspec  # noqa: F401  (registers)
from vitspec.benchmarking.pipelines import (
    CASES,
    format_pipeline_table,
    plain_pipeline,
    run_pipelines,
)
from vitspec.errors import ConfigError


def test_the_plain_pipeline_leaves_out_the_checks_and_takes_mmseg_s_depth_loader():
    pipeline = [
        dict(type='LoadImageFromFile', color_type='color_ignore_orientation'),
        dict(type='CheckSampleFiles', depth_scale=1000),
        dict(type='LoadDepthPNG', depth_scale=1000),
        dict(type='PackSegInputs'),
    ]
    assert plain_pipeline(pipeline) == [
        pipeline[0],
        dict(type='LoadDepthAnnotation', depth_rescale_factor=1e-3),
        pipeline[3],
    ]
    with pytest.raises(ConfigError, match='no CheckSampleFiles'):
        plain_pipeline([pipeline[0]])


def test_the_cases_are_the_four_datasets():
    assert sorted(CASES) == ['ade20k', 'cityscapes', 'coco', 'nyu']


def test_a_toy_run_reports_both_pipelines_and_their_ratio(realdata):
    rows = run_pipelines(['nyu', 'ade20k'], realdata, rounds=2, calls=2)
    assert [r['name'] for r in rows] == ['nyu', 'ade20k']
    for row in rows:
        assert row['samples'] >= 1 and row['rounds'] == 2 and row['calls'] == 2
        assert set(row['median_s']) == {'vitspec', 'plain'}
        assert all(len(t) == 2 and min(t) > 0 for t in row['times_s'].values())
        low, high = row['ratio_interval']
        assert low <= row['ratio'] <= high
        assert row['check_s'] > 0 and row['check_share'] > 0
    table = format_pipeline_table(rows, target=1.03)
    assert table.splitlines()[0].startswith('| pipeline | samples | vitspec ms/sample |')
    assert '| nyu | 1 |' in table and 'target ratio <= 1.03' in table
    with pytest.raises(ConfigError, match="unknown pipelines \\['voc'\\]"):
        run_pipelines(['voc'], realdata, 1, 1)
