"""Why a training command failed, in one line, from its output: the exception a rank raised
(torchrun prefixes a rank's lines with ``[rankN]:``) and, for torchrun, the exit code of the
rank it names as the root cause (a negative code is the signal that killed it: -9 is the kernel's
OOM killer or a ``kill -9``). torchrun's own last line is a row of ``=``, which says nothing."""

import re

_EXCEPTION = re.compile(
    r'^(?:\[rank(?P<rank>\d+)\]:\s*)?'
    r'(?P<line>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt)\b(?::.*)?)$'
)
_ROOT_CAUSE = re.compile(
    r'Root Cause.*?rank\s*:\s*(?P<rank>\d+).*?exitcode\s*:\s*(?P<code>-?\d+)'
    r'[^\n(]*(?:\(pid[^)]*\))?\s*(?:\((?P<signal>SIG\w+)\))?',
    re.S,
)
_LAUNCHER = 'ChildFailedError'


def failure_reason(output: str, limit: int = 300) -> str:
    """'rank R, exit code C: <exception>' for a torchrun run, '<exception>' for one process, or
    the output's last line when it shows neither; at most ``limit`` characters."""
    exceptions = []
    for raw in output.splitlines():
        match = _EXCEPTION.match(raw.strip())
        if match and _LAUNCHER not in match['line']:
            exceptions.append((match['rank'], match['line'].strip()))
    root = _ROOT_CAUSE.search(output)
    parts = []
    if root:
        signal = f' ({root["signal"]})' if root['signal'] else ''
        parts.append(f'rank {root["rank"]}, exit code {root["code"]}{signal}')
        exceptions = [e for e in exceptions if e[0] in (root['rank'], None)]
    if exceptions:
        parts.append(exceptions[-1][1])  # after chained tracebacks, the one raised last
    if not parts:
        parts = output.strip().splitlines()[-1:]
    return ': '.join(parts)[:limit]
