"""Matching a config key with the names its consumer reads: the option names of a class, and
the one meant when a key is a typo of one (vitspec.errors.did_you_mean)."""

import inspect

from vitspec.errors import did_you_mean

__all__ = ['constructor_options', 'unknown_option']


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
    hint = did_you_mean(key, options, typos_only=True)
    if hint:
        return f"{where}.{key}: {owner} has no option '{key}'; {hint}"
    if refuse:
        return (
            f"{where}.{key}: {owner} has no option '{key}'; its options: "
            f'{", ".join(sorted(options))}'
        )
    return ''
