"""mmengine's private Runner fields of checkpoint loading: the one place vitspec reads or writes
them.

mmengine 0.10's Runner keeps what it loads in private attributes with no public accessor: it sets
``_resume`` and ``_load_from`` from the config in ``__init__``, and ``_has_loaded`` once weights
are in (``load_or_resume`` then loads nothing more). vitspec reads them to choose strict loading
and to find the checkpoint a resume continues from, and records a strict load as mmengine's own
``load_checkpoint`` does. An mmengine that renames them breaks here only.
"""


def is_resuming(runner) -> bool:
    """``resume=True`` in the config (``--resume``)."""
    return bool(runner._resume)


def resumes_without_a_file(runner) -> bool:
    """``resume=True``, no ``load_from`` and nothing loaded yet: mmengine would resume from
    whatever the work dir's ``last_checkpoint`` names, or from nothing."""
    return bool(runner._resume) and runner._load_from is None and not runner._has_loaded


def set_checkpoint_to_resume(runner, filename: str) -> None:
    """The file ``load_or_resume`` resumes from."""
    runner._load_from = filename


def record_loaded(runner) -> None:
    """What mmengine's own ``load_checkpoint`` records: ``load_or_resume`` loads nothing more."""
    runner._has_loaded = True
