"""COCO panoptic segmentation whose classes, categories and thing / stuff split are checked.

mmdet's CocoPanopticDataset raises a bare KeyError for a segment of a category the config leaves
out (or the file does not list), takes the label order from the file's category order while the
post-processing (MaskFormerFusionHead) takes the first ``len(thing_classes)`` labels for things,
and needs panopticapi to load the PNGs. This one names the annotation file in each of these
cases, leaves segments of categories the config does not choose VOID (counted in a warning),
and records each segment's ``iscrowd`` for the panoptic quality metric.

A PNG that does not belong to its JSON entry would otherwise stop the run only when that image is
first loaded, possibly hours in. When the dataset is built, each image's PNG is checked as far as
its header tells (present, RGB, the image's size; under 0.1 ms each, about 10 s for the 118k
PNGs of COCO train2017 on a local disk), and the PNGs of the first few images are decoded and
their segment ids compared with the JSON's (a PNG folder of another split or version fails
there). The other PNGs' segment ids are compared the first time each sample is read
(CheckSampleFiles), or by the data check before the run.
"""

import logging
import os.path as osp
import warnings
from typing import List

from mmdet.datasets import CocoPanopticDataset
from mmdet.datasets.api_wrappers import COCOPanoptic
from mmdet.registry import DATASETS
from mmengine.logging import print_log
from PIL import Image

from vitspec.errors import ConfigError, DataFileError
from vitspec.fileio.panoptic_png import check_segment_ids, read_panoptic_png

from .coco_classes import missing_classes_message
from .named_coco_api import NamedCOCO

# The metainfo key under which the evaluator (PanopticQualityMetric) finds the file read here.
ANN_FILE_KEY = 'ann_file'
PNGS_DECODED = 4  # images whose PNG segment ids are compared with the JSON when it is built
MAX_NAMED = 5


class NamedCOCOPanoptic(NamedCOCO, COCOPanoptic):
    """mmdet's panoptic COCO API whose errors name the annotation file."""

    def createIndex(self):  # noqa: N802 (pycocotools' name)
        for entry in self.dataset.get('annotations', []) if isinstance(self.dataset, dict) else []:
            if not isinstance(entry, dict) or not isinstance(entry.get('segments_info'), list):
                raise DataFileError(
                    f'COCO panoptic file {self.name}: an annotation without a segments_info list '
                    f'(image {entry.get("image_id") if isinstance(entry, dict) else entry!r})'
                )
        super().createIndex()


@DATASETS.register_module()
class CheckedCocoPanopticDataset(CocoPanopticDataset):
    """CocoPanopticDataset with its checks (module docstring). ``metainfo`` gives ``classes``
    as ``thing_classes + stuff_classes``: each name must be a category of the file, the things
    ``isthing`` 1 and the stuff 0 there, and the file must list the chosen things before the
    chosen stuff (mmdet numbers the labels in the file's order). Pipelines load the PNGs with
    ``LoadPanopticPNG``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._metainfo[ANN_FILE_KEY] = self.ann_file

    @property
    def COCOAPI(self):  # noqa: N802 (mmdet's name)
        return self._read_file

    def _read_file(self, path: str) -> NamedCOCOPanoptic:
        # kept for the checks: mmdet's load_data_list deletes self.coco when done
        self._file = NamedCOCOPanoptic(
            path, name=self.ann_file, need_annotations=not self.test_mode
        )
        return self._file

    def load_data_list(self) -> List[dict]:
        self._unchosen = 0
        data_list = super().load_data_list()
        self._check_classes(self._file.dataset['categories'])
        del self._file
        self._check_pngs(data_list)
        if self._unchosen:
            print_log(
                f'{self.ann_file}: {self._unchosen} segments of categories outside the config '
                'classes are VOID',
                logger='current',
                level=logging.WARNING,
            )
        return data_list

    def _check_pngs(self, data_list: List[dict]) -> None:
        """DataFileError naming the PNGs that are missing, not RGB or not their image's size
        (from their headers), or, of the first PNGS_DECODED, whose segment ids differ from the
        JSON's. Skipped for files not on a local disk (``backend_args``)."""
        with_png = [d for d in data_list if d.get('seg_map_path')]
        if not with_png or (self.backend_args or {}).get('backend', 'local') != 'local':
            return
        problems = [p for p in map(_png_header_problem, with_png) if p]
        if problems:
            more = len(problems) - MAX_NAMED
            raise DataFileError(
                f'COCO panoptic file {self.ann_file}: {len(problems)} of {len(with_png)} PNGs '
                f'do not fit their JSON entries: {"; ".join(problems[:MAX_NAMED])}'
                + (f'; ... and {more} more' if more > 0 else '')
                + f'. Check that data_prefix.seg ({self.data_prefix.get("seg")}) holds the PNGs '
                'of this annotation file'
            )
        for info in with_png[:PNGS_DECODED]:
            ids = read_panoptic_png(info['seg_map_path'])
            check_segment_ids(ids, (s['id'] for s in info['segments_info']), info['seg_map_path'])

    def _check_classes(self, cats: List[dict]) -> None:
        names = [c['name'] for c in cats]
        classes = list(self.metainfo['classes'])
        problem = missing_classes_message(classes, names)
        if problem:
            raise DataFileError(f'COCO panoptic file {self.ann_file}: {problem}')
        things = list(self.metainfo.get('thing_classes', ()))
        stuff = list(self.metainfo.get('stuff_classes', ()))
        if sorted(things + stuff) != sorted(classes):
            raise ConfigError(
                f'metainfo classes must be thing_classes + stuff_classes, got classes={classes}, '
                f'thing_classes={things}, stuff_classes={stuff}'
            )
        is_thing = {c['name']: bool(c.get('isthing')) for c in cats}
        wrong = [n for n in things if not is_thing[n]] + [n for n in stuff if is_thing[n]]
        if wrong:
            raise DataFileError(
                f'COCO panoptic file {self.ann_file}: the config and the file disagree on which '
                f'classes are things (isthing): {wrong}'
            )
        order = [n for n in names if n in set(classes)]  # mmdet's label order
        if order[: len(things)] != [n for n in order if n in set(things)]:
            raise DataFileError(
                f'COCO panoptic file {self.ann_file} lists the chosen stuff categories before '
                f'some things ({order}): labels would not put things first, as the panoptic '
                'post-processing needs'
            )

    def parse_data_info(self, raw_data_info: dict) -> dict:
        img_info = raw_data_info['raw_img_info']
        anns = [a for a in raw_data_info['raw_ann_info'] if a['image_id'] == img_info['img_id']]
        seg_prefix = self.data_prefix.get('seg')
        data_info = dict(
            img_path=osp.join(self.data_prefix['img'], img_info['file_name']),
            img_id=img_info['img_id'],
            seg_map_path=(
                osp.join(seg_prefix, img_info['file_name'].replace('.jpg', '.png'))
                if seg_prefix
                else None
            ),
            height=img_info['height'],
            width=img_info['width'],
        )
        instances, segments_info = [], []
        for ann in anns:
            category_id = ann['category_id']
            if category_id not in self.coco.cats:
                raise DataFileError(
                    f'COCO panoptic file {self.ann_file}: segment {ann["id"]} of image '
                    f'{img_info["img_id"]} has category_id {category_id}, which the file does '
                    f'not list (categories: {sorted(self.coco.cats)})'
                )
            label = self.cat2label.get(category_id)
            if label is None:
                self._unchosen += 1
            crowd = bool(ann.get('iscrowd', 0))
            is_thing = bool(self.coco.cats[category_id].get('isthing')) and label is not None
            x, y, w, h = ann['bbox']
            if is_thing and not crowd and w >= 1 and h >= 1 and ann['area'] > 0:
                instances.append(dict(bbox=[x, y, x + w, y + h], bbox_label=label, ignore_flag=0))
            segments_info.append(
                dict(
                    id=ann['id'],
                    category=label,
                    is_thing=is_thing and not crowd and w >= 1 and h >= 1 and ann['area'] > 0,
                    iscrowd=crowd,
                )
            )
        data_info['instances'] = instances
        data_info['segments_info'] = segments_info
        return data_info


def _png_header_problem(info: dict) -> str:
    """Why the panoptic PNG of ``info`` cannot be its image's, from the file's header; ''."""
    path, size = info['seg_map_path'], (info['width'], info['height'])
    if not osp.isfile(path):
        return f'{path} does not exist'
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with Image.open(path) as png:
                mode, png_size = png.mode, png.size
    except (OSError, SyntaxError, ValueError) as exc:
        return f'{path} is not a readable image ({exc})'
    if mode != 'RGB':
        return f'{path} is not an RGB image (mode {mode})'
    if png_size != size:
        return f'{path} is {png_size[0]}x{png_size[1]}, its image {size[0]}x{size[1]}'
    return ''
