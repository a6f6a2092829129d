"""Print, config by config, the keys where the built leaf configs of a git ref (or of another
checkout) and of this working tree differ: the check for a config refactor, which must change
no built config.

    python tools/diff_configs.py [REF]            # REF defaults to HEAD
    python tools/diff_configs.py --before DIR     # a checkout that is already there

REF is checked out with ``git worktree add --detach`` into a temporary folder, removed after.
Exit status 1 when any config differs or exists on one side only.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from vitspec.config.digest import built_config, leaf_configs
from vitspec.config.tree import diff

REPO = Path(__file__).resolve().parents[1]


def built_leaves(configs_dir: Path) -> dict:
    return {
        p.relative_to(configs_dir).as_posix(): built_config(p) for p in leaf_configs(configs_dir)
    }


def report(before: dict, after: dict) -> int:
    differing = 0
    for name in sorted(before.keys() | after.keys()):
        if name not in after or name not in before:
            print(f'{name}: only {"before" if name in before else "after"}')
            differing += 1
            continue
        lines = diff(before[name], after[name])
        if lines:
            differing += 1
            print(f'{name}: {len(lines)} keys differ')
            print('\n'.join(f'    {line}' for line in lines))
    print(f'{len(after)} configs built, {differing} differ from before ({len(before)} configs)')
    return differing


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('ref', nargs='?', default='HEAD')
    parser.add_argument('--before', type=Path, help='a checkout to compare with instead of REF')
    parser.add_argument('--after', type=Path, default=REPO, help='default: this working tree')
    args = parser.parse_args(argv)
    after = built_leaves(args.after / 'configs')
    if args.before is not None:
        before = built_leaves(args.before / 'configs')
    else:
        with tempfile.TemporaryDirectory() as tmp:
            tree = Path(tmp) / 'before'
            git = ['git', '-C', str(args.after)]
            subprocess.run(
                [*git, 'worktree', 'add', '--detach', '-q', str(tree), args.ref], check=True
            )
            try:
                before = built_leaves(tree / 'configs')
            finally:
                subprocess.run([*git, 'worktree', 'remove', '--force', str(tree)], check=True)
    sys.exit(1 if report(before, after) else 0)


if __name__ == '__main__':
    main()
