"""Every leaf config builds to the digest recorded in config_digests.json: a config refactor
(inheriting from a sibling or a fragment) leaves every built config unchanged."""

import json

from tests.utils import ROOT
from vitspec.config.digest import config_digest, leaf_digests
from vitspec.config.tree import canonical

DIGESTS = ROOT / 'tests' / 'configs' / 'config_digests.json'


def test_every_leaf_config_builds_to_its_recorded_digest():
    recorded = json.loads(DIGESTS.read_text())
    built = leaf_digests(ROOT / 'configs')
    differ = sorted(k for k in recorded.keys() | built.keys() if recorded.get(k) != built.get(k))
    assert not differ, (
        f'built configs differ from {DIGESTS.name}: {differ}. '
        'Keys that differ: python tools/diff_configs.py HEAD (or another git ref); '
        'if the change is meant: python tools/make_config_digests.py'
    )


def test_digest_tells_tuples_from_lists_and_ignores_key_order():
    assert config_digest({'a': 1, 'b': (1, 2)}) == config_digest({'b': (1, 2), 'a': 1})
    assert config_digest({'b': (1, 2)}) != config_digest({'b': [1, 2]})
    assert canonical({'t': type}) == {'t': {'__repr__': "<class 'type'>"}}
