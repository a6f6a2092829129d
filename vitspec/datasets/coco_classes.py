"""The config's COCO classes must be category names of the annotation file.

mmdet maps ``metainfo.classes`` to category ids by name and takes the classes it does not find
as absent: one class renamed in the file leaves the model's labels out of step with the file's
ids (an IndexError in the metric's results2json, after the whole test), and no name in common
leaves every image without an instance ('a dataset is empty').
"""

from typing import Iterable, Sequence

from vitspec.errors import closest_names


def missing_classes_message(classes: Sequence[str], file_names: Iterable[str]) -> str:
    """Why the config's ``classes`` do not all name a category of the file, or ''."""
    file_names = list(file_names)
    missing = [c for c in classes if c not in set(file_names)]
    if not missing:
        return ''
    unused = [n for n in file_names if n not in set(classes)]
    guesses = []
    for name in missing:
        close = closest_names(name, unused)
        if close:
            guesses.append(f'{name!r} -> {close[0]!r}')
    hint = f' Closest names in the file: {", ".join(guesses)}.' if guesses else ''
    return (
        f'{len(missing)} of the {len(classes)} classes of the config (metainfo.classes) are not '
        f'category names of the file: {", ".join(map(repr, missing))}.{hint} Classes of the '
        f'config: {list(classes)}; categories of the file: {file_names}. Make the names the '
        f"same (the config's metainfo=dict(classes=...) of the dataset and its evaluator, or the "
        f"file's categories)."
    )
