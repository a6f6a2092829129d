"""Write docs/model_zoo.md: every benchmark config, by dataset, technique and method, read off the
configs/ tree (the _base_ lines naming a backbone and a technique fragment), so it cannot drift.

    python tools/make_model_table.py [--out docs/model_zoo.md] [--check]

--check: exit 1 if the file differs from what the configs give (the test suite runs this).
"""

import argparse
import sys
from pathlib import Path

from vitspec.ledger.model_table import model_table

ROOT = Path(__file__).resolve().parents[1]  # the checkout: docs/


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out', type=Path, default=ROOT / 'docs' / 'model_zoo.md')
    parser.add_argument('--check', action='store_true')
    args = parser.parse_args(argv)
    table = model_table()
    if args.check:
        if not args.out.is_file() or args.out.read_text() != table:
            sys.exit(f'{args.out} is out of date: run python tools/make_model_table.py')
        return
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(table)
    print(f'wrote {args.out}')


if __name__ == '__main__':
    main()
