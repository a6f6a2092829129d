"""Record the digest of every built leaf config in tests/configs/config_digests.json, on purpose:
after a change that is meant to change built configs (a refactor must not; check it first with
python tools/diff_configs.py).

    python tools/make_config_digests.py [--check] [--configs DIR]

--check: exit 1, naming the configs, if the recorded digests differ from the built configs.
"""

import argparse
import json
import sys
from pathlib import Path

from vitspec.config.digest import leaf_digests

REPO = Path(__file__).resolve().parents[1]
DIGESTS = REPO / 'tests' / 'configs' / 'config_digests.json'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out', type=Path, default=DIGESTS)
    parser.add_argument('--check', action='store_true')
    parser.add_argument('--configs', type=Path, default=REPO / 'configs', help='a configs/ tree')
    args = parser.parse_args(argv)
    digests = leaf_digests(args.configs)
    if args.check:
        recorded = json.loads(args.out.read_text()) if args.out.is_file() else {}
        differ = sorted(
            k for k in recorded.keys() | digests.keys() if recorded.get(k) != digests.get(k)
        )
        if differ:
            sys.exit('built configs differ from ' + f'{args.out}: ' + ', '.join(differ))
        return
    args.out.write_text(json.dumps(digests, indent=1, sort_keys=True) + '\n')
    print(f'wrote {len(digests)} digests to {args.out}')


if __name__ == '__main__':
    main()
