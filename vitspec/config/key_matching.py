"""Matching a config key with the names its consumer reads: the option names of a class, and
the closest name within typo distance."""

import inspect

__all__ = ['closest', 'constructor_options', 'edit_distance', 'unknown_option']


def constructor_options(cls):
    """The named parameters of ``cls``'s constructor, following ``**kwargs`` up the classes it
    derives from; and whether it still takes any keyword (``**kwargs`` all the way up)."""
    options = set()
    for klass in cls.__mro__:
        if klass is object:
            return options, True
        if '__init__' not in vars(klass):
            continue
        parameters = list(inspect.signature(klass.__init__).parameters.values())[1:]
        options.update(
            p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        )
        if not any(p.kind is p.VAR_KEYWORD for p in parameters):
            return options, False
    return options, True


def unknown_option(where: str, owner: str, key: str, options, refuse: bool) -> str:
    """The problem of ``key`` that ``owner`` has no option of: the option meant when one is
    within typo distance, else (when ``refuse``: ``owner`` takes no other keyword) the options
    it has; '' for an unmatched key of an owner that takes any."""
    meant = closest(key, options)
    if meant:
        return f"{where}.{key}: {owner} has no option '{key}'; did you mean '{meant}'?"
    if refuse:
        return (
            f"{where}.{key}: {owner} has no option '{key}'; its options: "
            f'{", ".join(sorted(options))}'
        )
    return ''


def closest(key: str, candidates) -> str:
    """The candidate within typo distance of ``key`` (1 edit for names under 9 characters, else
    2; a swap of neighbours is one edit, case ignored), the nearest first; '' when none."""
    limit = 1 if len(key) < 9 else 2
    scored = sorted((edit_distance(key.lower(), c.lower()), c) for c in candidates)
    return next((c for d, c in scored if c != key and d <= limit), '')


def edit_distance(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions, swaps."""
    previous2, previous = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]
