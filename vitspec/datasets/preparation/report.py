"""What a preparation did: the files it wrote, those already there, those it refused and why,
and for a check the problems it found; printed as a summary at the end of the run."""

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Tuple

WRITTEN, LINKED, KEPT, REPLACED = 'written', 'linked', 'already there', 'replaced'
SHOWN = 3  # example paths shown per kind of output in the summary


@dataclass
class PrepareReport:
    done: Dict[str, List[Path]] = field(default_factory=lambda: defaultdict(list))
    refused: List[Tuple[Path, str]] = field(default_factory=list)
    problems: List[Tuple[Path, str]] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    def add(self, what: str, path: Path) -> None:
        self.done[what].append(path)

    def refuse(self, path: Path, reason: str) -> None:
        self.refused.append((path, reason))

    def problem(self, path: Path, reason: str) -> None:
        self.problems.append((path, reason))

    def note(self, line: str) -> None:
        self.notes.append(line)

    def count(self, what: str) -> int:
        return len(self.done.get(what, ()))

    @property
    def changed(self) -> int:
        """Files written, linked or replaced by this run."""
        return sum(self.count(w) for w in (WRITTEN, LINKED, REPLACED))

    @property
    def ok(self) -> bool:
        return not self.refused and not self.problems

    def summary(self) -> str:
        lines = []
        for what in (WRITTEN, LINKED, REPLACED, KEPT):
            paths = self.done.get(what, [])
            if paths:
                shown = ', '.join(str(p) for p in paths[:SHOWN])
                more = f', ... ({len(paths) - SHOWN} more)' if len(paths) > SHOWN else ''
                lines.append(f'{what}: {len(paths)} files ({shown}{more})')
        if not any(self.done.values()):
            lines.append('written: nothing')
        lines += [f'refused: {p}: {reason}' for p, reason in self.refused]
        lines += [f'problem: {p}: {reason}' for p, reason in self.problems]
        lines += self.notes
        if self.refused or self.problems:
            lines.append(
                f'{len(self.refused)} refused, {len(self.problems)} problems: see the lines above'
            )
        return '\n'.join(lines)
