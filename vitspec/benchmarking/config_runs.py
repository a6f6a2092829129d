"""Training configs timed side by side: each config's train step in its own worker, the workers
in interleaved, rotating rounds as the backbone settings (measure.interleaved_times), the speed
against the baseline config (the first unless named) paired round by round."""

import os.path as osp
import statistics

from vitspec.errors import ConfigError

from .config_source import check_config_exists
from .measure import interleaved_times
from .stats import paired_ratio
from .worker import ConfigWorker


def run_configs(
    configs, device, rounds, warmup, batch=None, cfg_options=None, mode='training', baseline=None
):
    """Times each config's ``model.train_step`` (``mode='inference'``: its ``model.test_step``,
    no gradients, eval mode); ``configs``: paths (``pkg::path`` too), or
    dicts ``dict(config=path, name=..., cfg_options=...)`` whose options win over the
    ``cfg_options`` given to all, and whose ``kernels`` ('torchvision' / 'compiled') sets whose
    kernels mmcv's ops run on. ``batch`` replaces the configs' training batch size.
    ``baseline``: the name of the config the speeds refer to (default: the first).

    A config file that does not exist, or a baseline that names none of the configs, is refused
    before any model is built."""
    if not configs:
        raise ConfigError('no config to run')
    specs = [dict(config=c) if isinstance(c, str) else dict(c) for c in configs]
    for spec in specs:
        check_config_exists(spec['config'])
    names = config_names(specs)
    base = refuse_config_baseline(names, baseline)
    cases = []
    try:
        for spec, name in zip(specs, names):
            options = {**(cfg_options or {}), **(spec.get('cfg_options') or {})}
            worker = ConfigWorker(
                name, spec['config'], device, batch, options or None, mode, spec.get('kernels')
            )
            cases.append(worker)
        times = interleaved_times(cases, rounds, warmup)
        rows = [_row(case, spec, times, base) for case, spec in zip(cases, specs)]
    finally:
        for case in cases:
            case.close()
    return dict(device=str(device), mode=mode, baseline=base, rows=rows)


def refuse_config_baseline(names, baseline):
    """The baseline's name: ``baseline`` when it names one of the configs (``names``, as the
    table prints them), the first config's when None; any other name is a ConfigError listing
    the names there are."""
    if baseline is None:
        return names[0]
    if baseline not in names:
        raise ConfigError(
            f'--baseline {baseline!r} names none of the configs; their names (the file name '
            f'without .py, #2, #3 ... for a repeated one): {", ".join(names)}'
        )
    return baseline


def _row(case, spec, times, base):
    median = statistics.median(times[case.name])
    ratio, low, high = paired_ratio(times[case.name], times[base])
    described = case.describe()
    return dict(
        name=case.name,
        config=spec['config'],
        **described,
        median_s=median,
        images_per_s=described['batch'] / median,
        speed_vs_baseline=1 / ratio,
        speed_interval=[1 / high, 1 / low],
        memory_bytes=case.memory_bytes(),
        runs=len(times[case.name]),
        times_s=times[case.name],
    )


def config_names(configs):
    """The configs' names in the table: a spec's ``name``, else the file name without .py;
    a repeated one gets '#2', '#3' ...; ``configs`` as run_configs takes them."""
    specs = [dict(config=c) if isinstance(c, str) else c for c in configs]
    return _unique_names([s.get('name') or _short_name(s['config']) for s in specs])


def _short_name(config):
    return osp.splitext(osp.basename(config.split('::')[-1]))[0]


def _unique_names(names):
    """Names as given; a repeated one gets '#2', '#3' ... (the same config with other options)."""
    seen, unique = {}, []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f'{name}#{seen[name]}')
    return unique
