"""mmdet's COCO API whose errors name the annotation file and say what is wrong with it.

pycocotools reads an empty or truncated file with a bare JSONDecodeError and an object without
``images`` / ``categories`` as an empty dataset; neither names the file.
"""

import json

from mmdet.datasets.api_wrappers import COCO

from vitspec.errors import DataFileError


def coco_structure_problem(content, need_annotations: bool = True) -> str:
    """What keeps ``content`` (a decoded JSON file) from being COCO instances, or ''."""
    if not isinstance(content, dict):
        return f'holds a JSON {type(content).__name__}, not an object with COCO fields'
    required = (
        ('images', 'annotations', 'categories') if need_annotations else ('images', 'categories')
    )
    absent = [key for key in required if key not in content]
    if absent:
        return f'has no {", ".join(repr(k) for k in absent)} (keys: {sorted(content) or "none"})'
    not_lists = [k for k in required if not isinstance(content[k], list)]
    if not_lists:
        return f'{", ".join(repr(k) for k in not_lists)} must be a list'
    return ''


class NamedCOCO(COCO):
    """``name``: the annotation file as configured (``annotation_file`` may be a local copy).
    ``need_annotations=False`` accepts image-info files without annotations (COCO test-dev)."""

    def __init__(self, annotation_file: str, name: str = '', need_annotations: bool = True):
        self.name = name or annotation_file
        self.need_annotations = need_annotations
        try:
            super().__init__(annotation_file)
        except json.JSONDecodeError as exc:
            what = 'is empty' if not exc.doc.strip() else f'is not valid JSON ({exc})'
            raise DataFileError(f'COCO annotation file {self.name} {what}') from exc
        except UnicodeDecodeError as exc:
            raise DataFileError(f'COCO annotation file {self.name} is not text: {exc}') from exc
        except AssertionError as exc:  # pycocotools asserts a JSON object before createIndex
            raise DataFileError(
                f'COCO annotation file {self.name} is not a JSON object with COCO fields ({exc})'
            ) from exc

    def createIndex(self):  # noqa: N802 (pycocotools' name)
        problem = coco_structure_problem(self.dataset, self.need_annotations)
        if problem:
            raise DataFileError(f'COCO annotation file {self.name} {problem}')
        super().createIndex()
