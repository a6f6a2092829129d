"""README's first screen (60 lines) says what vitspec is, how to install it, one command that
trains and one that evaluates, and ends with the short results table, whose published values are
those of the ledger rows of the configs it links (what was measured here is typed by hand from
docs/demo.md and docs/installation.md). Every published result is in docs/reproduce.md
(generated); README's lines fit 100 columns."""

import re

import yaml

from tests.utils import ROOT

SCREEN = 60
README = (ROOT / 'README.md').read_text().splitlines()
HEADER = '| task (config) | published | measured here | status |'


def ledger_values() -> dict:
    """``{config: {'mIoU 47.3', ...}}`` over every dataset ledger."""
    values = {}
    for path in sorted((ROOT / 'configs').glob('*/reproductions.yaml')):
        for row in yaml.safe_load(path.read_text()).get('rows') or []:
            values.setdefault(row['config'], set()).add(f'{row["metric"]} {row["value"]}')
    return values


def results_table() -> list:
    start = README.index(HEADER)
    end = next(i for i in range(start, len(README)) if not README[i].startswith('|'))
    return list(range(start, end))


def test_the_first_screen_installs_trains_evaluates_and_shows_the_results():
    screen = '\n'.join(README[:SCREEN])
    for text in ('## Install', 'tools/install.sh', 'tools/dist_train.sh', 'tools/dist_test.sh'):
        assert text in screen
    assert results_table()[-1] < SCREEN, 'the results table must end on the first screen'
    assert [line for line in README if len(line) > 100] == []


def test_published_values_are_the_ledgers():
    links = dict(re.findall(r'^\[(\w+)\]: (configs/\S+\.py)$', '\n'.join(README), re.M))
    values = ledger_values()
    rows = [README[i] for i in results_table()[2:]]
    assert len(rows) >= 5
    for line in rows:
        task, published = (cell.strip() for cell in line.strip('|').split('|')[:2])
        config = links[re.search(r'\]\[(\w+)\]', task).group(1)]
        assert published in values[config], f'{task}: {published} is not in the ledger'
