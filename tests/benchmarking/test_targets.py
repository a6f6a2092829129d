"""vitspec.benchmarking.targets and presets: targets compare the rows they name."""

from vitspec.benchmarking.presets import PRESETS, TARGETS
from vitspec.benchmarking.targets import check_targets


def test_targets_compare_the_named_rows():
    results = [
        dict(
            rows=[
                dict(model='timm', median_s=1.0, times_s=[1.0] * 10, memory_mb=None),
                dict(model='specvit', median_s=0.8, times_s=[0.8] * 10, memory_mb=None),
            ]
        ),
        dict(
            rows=[
                dict(model='specvit', median_s=2.0, times_s=[2.0] * 10, memory_mb=100.0),
                dict(model='specvit-spec', median_s=2.2, times_s=[2.2] * 10, memory_mb=101.0),
            ]
        ),
    ]
    lines = check_targets(
        [
            ('speed', (0, 'specvit'), (0, 'timm'), 'speed', '>= 1.00'),
            ('time', (1, 'specvit-spec'), (1, 'specvit'), 'time', '<= 1.05'),
            ('memory', (1, 'specvit-spec'), (1, 'specvit'), 'memory', '<= 1.02'),
            ('across settings', (1, 'specvit'), (0, 'specvit'), 'speed', '>= 0.50'),
        ],
        results,
    )
    assert lines == [
        '- speed: 1.250 (95 % interval 1.250-1.250) (target >= 1.00) ok',
        '- time: 1.100 (95 % interval 1.100-1.100) (target <= 1.05) MISSED',
        '- memory: 1.010 (target <= 1.02) ok',
        '- across settings: 0.400 (target >= 0.50) MISSED',
    ]


def test_every_target_names_a_measured_row():
    for preset, targets in TARGETS.items():
        settings = PRESETS[preset]
        for what, *pairs, quantity, _ in targets:
            for index, model in pairs:
                assert model in settings[index]['models'], (preset, what)
                if quantity == 'memory':
                    assert settings[index]['mode'] == 'training', (preset, what)  # CPU memory
