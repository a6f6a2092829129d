"""Print a built config, each value with the file of its _base_ chain it came from.

    python tools/print_config.py CONFIG [--cfg-options KEY=VALUE ...]

The config as tools/train.py builds it (the same --cfg-options, checked the same way), written
as Python. A ``# from FILE`` comment names the last file of the chain that set or changed a
value (``--cfg-options`` for a value an option set), on each top-level key and wherever a value
comes from another file than the dict or list holding it. As mmseg's tools/misc/print_config.py,
it writes nothing: redirect the output to keep it.
"""

import argparse
import os.path as osp

from vitspec.config.annotated import annotated_text
from vitspec.config.cfg_options import merge_cfg_options
from vitspec.config.cfg_options_action import CfgOptionsAction
from vitspec.config.chain import chain_depth, inherited_files
from vitspec.config.load import load_config
from vitspec.config.location import config_path
from vitspec.config.origins import check_option_keys, display_name, value_origins, with_options
from vitspec.config.tree import plain
from vitspec.errors import ConfigError


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('config', help='a config file, or vitspec::<path below configs/>')
    parser.add_argument(
        '--cfg-options',
        nargs='+',
        action=CfgOptionsAction,
        metavar='KEY=VALUE',
        help='override config entries as tools/train.py does, e.g. train_cfg.max_iters=100',
    )
    args = parser.parse_args(argv)
    try:
        path = config_path(args.config)
    except FileNotFoundError as exc:
        parser.error(str(exc))
    if not osp.isfile(path):
        parser.error(f'{args.config}: no such config file')
    cfg = load_config(path)
    origins = value_origins(path)
    if args.cfg_options:
        before = cfg.to_dict()
        try:
            check_option_keys(cfg, args.cfg_options)
            merge_cfg_options(cfg, args.cfg_options)
        except (ConfigError, TypeError, KeyError) as exc:
            parser.error(str(exc).strip('"'))
        origins = with_options(before, cfg.to_dict(), origins)
    files = inherited_files(path)
    print(
        f'# {display_name(path)}: built from {len(files)} files, {chain_depth(path)} levels of '
        '_base_ deep; "from": the last file that set or changed the value'
    )
    print(annotated_text(plain(cfg.to_dict(), keep_tuples=True), origins, display_name))


if __name__ == '__main__':
    main()
