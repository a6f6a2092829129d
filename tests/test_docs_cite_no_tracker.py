"""The docs cite papers and upstream repositories, never this project's tracker: no "issue 39",
"#41" or "round 4" in docs/, README.md, CONTRIBUTING.md or CHANGELOG.md. An upstream
repository's issue is named with its repository ("facebookresearch/dinov3 issue #182")."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    *sorted((ROOT / 'docs').glob('*.md')),
    *(ROOT / name for name in ('README.md', 'CONTRIBUTING.md', 'CHANGELOG.md')),
]

TRACKER = re.compile(r'\bissues? ?#?\d+\b|(?<![\w&/])#\d+\b|\bround \d+\b', re.IGNORECASE)
UPSTREAM = re.compile(r'[\w.-]+/[\w.-]+ $')  # 'owner/repo ' right before 'issue #N'


def tracker_citations(text: str) -> list:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in TRACKER.finditer(line):
            if not UPSTREAM.search(line[: match.start()]):
                found.append(f'{number}: {match.group(0)}')
    return found


def test_no_page_cites_the_tracker():
    cited = {p.relative_to(ROOT).as_posix(): tracker_citations(p.read_text()) for p in PAGES}
    assert not {page: lines for page, lines in cited.items() if lines}


def test_the_pattern_finds_tracker_numbers_and_lets_upstream_issues_pass():
    text = (
        'kernels (issue 39; a test)\nfixed in #41.\nIssue 28 checks\ncorrectness round 4\n'
        'not released (facebookresearch/dinov3 issue #182)\n## Heading &#35; 40 rounds, §6.3.1'
    )
    assert tracker_citations(text) == ['1: issue 39', '2: #41', '3: Issue 28', '4: round 4']
