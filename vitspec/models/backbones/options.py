"""Checking the option dicts of a backbone config: unknown keys name the closest valid one."""

from vitspec.errors import did_you_mean


def unknown_key_error(owner: str, key: str, valid) -> TypeError:
    hint = did_you_mean(key, valid) or f'valid: {", ".join(sorted(valid))}'
    return TypeError(f"{owner} got an unknown option '{key}'; {hint}")


def merge_options(owner: str, given, defaults: dict) -> dict:
    """``defaults`` updated by ``given`` (a dict, or True for the defaults)."""
    given = {} if given is True else dict(given)
    for key in given:
        if key not in defaults:
            raise unknown_key_error(owner, key, defaults)
    return {**defaults, **given}
