"""The reproduction ledger (configs/reproductions.yaml and configs/<dataset>/reproductions.yaml):
published results, the configs that reproduce them, and the published protocol values each config
must hold. Every ledger file is checked against configs/reproductions.schema.yaml when it is read.

    python tools/reproductions.py --check               # every row's fields vs the built configs
    python tools/reproductions.py [--out docs/reproduce.md] [--check-doc]
    python tools/reproductions.py --compare WORK_DIR [WORK_DIR ...]   # finished runs vs rows

--check exits 1 listing each field whose built value differs from the published one;
--check-doc exits 1 if docs/reproduce.md or README.md's table of published results is not what the
ledger gives (the test suite runs both); --compare exits 1 naming each run, row or metric it could
not compare (docs/reproduce.md says how runs are matched and read).

Everything is read and written in the checkout this script belongs to (its parent folder), not in
the one vitspec happens to be imported from; the first line of output names it.
"""

import argparse
import sys
from pathlib import Path

from vitspec.apis.reproductions import (
    DOC_PATH,
    LEDGER_PATH,
    ROOT,
    check_row,
    checkout_of,
    load_ledger,
    readme_with_table,
    render_doc,
)
from vitspec.apis.result_comparison import compare

CHECKOUT = Path(__file__).resolve().parents[1]


def which_checkout(root: Path) -> str:
    where = f'reproductions: the ledger, configs, docs and README.md of {root}'
    if root != ROOT:
        where += f' (vitspec itself is imported from {ROOT})'
    return where


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument(
        '--ledger',
        default=str(CHECKOUT / LEDGER_PATH),
        help='the shared file; the dataset files it lists are read beside it',
    )
    parser.add_argument('--check', action='store_true', help='compare every row with its config')
    parser.add_argument('--out', help=f"default: {DOC_PATH} of the ledger's checkout")
    parser.add_argument('--check-doc', action='store_true')
    parser.add_argument(
        '--compare',
        nargs='+',
        metavar='WORK_DIR',
        help='finished runs (training, or tools/test.py): published vs measured for their rows',
    )
    args = parser.parse_args(argv)
    root = checkout_of(args.ledger)
    print(which_checkout(root), flush=True)
    args.out = args.out or str(root / DOC_PATH)
    ledger = load_ledger(args.ledger)
    status = 0
    if args.check:
        problems = [p for row in ledger['rows'] for p in check_row(ledger, row, root=root)]
        print('\n'.join(problems) or f'{len(ledger["rows"])} rows match their configs')
        status = int(bool(problems))
    if args.compare:
        text, compared = compare(ledger, args.compare, root)
        print(text)
        status = max(status, int(not compared))
        if not args.check_doc:
            return status
    doc = render_doc(ledger)
    readme_path = root / 'README.md'
    readme = readme_with_table(readme_path.read_text(), ledger)
    if args.check_doc:
        if (
            not Path(args.out).is_file()
            or Path(args.out).read_text() != doc
            or readme_path.read_text() != readme
        ):
            print(f'{args.out} or README.md is out of date: run python tools/reproductions.py')
            return 1
    elif not args.check:
        Path(args.out).write_text(doc)
        readme_path.write_text(readme)
        print(f"wrote {args.out} and README.md's table ({len(ledger['rows'])} rows)")
    return status


if __name__ == '__main__':
    sys.exit(main())
