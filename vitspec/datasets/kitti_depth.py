"""KITTI depth with BTS-style split files (Eigen split): raw images + 16-bit depth PNGs."""

import os.path as osp

from mmengine.dataset import BaseDataset
from mmseg.registry import DATASETS

from vitspec.errors import DataFileError


@DATASETS.register_module()
class KITTIDepthDataset(BaseDataset):
    """Each line of ``ann_file`` (the split file) reads ``<image> <depth> <focal>``; the image
    is relative to ``data_prefix['img_path']`` (the KITTI raw root), the depth PNG to
    ``data_prefix['depth_map_path']`` (e.g. data_depth_annotated). Lines whose depth is
    'None' (Eigen test frames without ground truth) are skipped, as BTS does. Every named file
    must exist: a missing one raises DataFileError with the split file and line.
    """

    METAINFO = dict(classes=('depth',))  # mmseg's visualizer reads dataset_meta

    def __init__(
        self,
        ann_file: str,
        data_prefix=dict(img_path='raw', depth_map_path='data_depth_annotated'),
        **kwargs,
    ):
        super().__init__(ann_file=ann_file, data_prefix=data_prefix, **kwargs)

    def load_data_list(self) -> list:
        img_root = self.data_prefix.get('img_path', '')
        depth_root = self.data_prefix.get('depth_map_path', '')
        if not osp.isfile(self.ann_file):
            raise DataFileError(f'KITTI split file not found: {self.ann_file}')
        data_list = []
        with open(self.ann_file) as f:
            for lineno, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != 3:
                    raise DataFileError(
                        f'{self.ann_file}:{lineno}: expected "<image> <depth> '
                        f'<focal>", got {line.strip()!r}'
                    )
                image, depth, focal = fields
                if depth == 'None':
                    continue
                info = dict(
                    img_path=osp.join(img_root, image),
                    depth_map_path=osp.join(depth_root, depth),
                    focal=float(focal),
                    seg_fields=[],
                )
                for kind in ('img_path', 'depth_map_path'):
                    if not osp.isfile(info[kind]):
                        what = 'image' if kind == 'img_path' else 'depth map'
                        raise DataFileError(
                            f'{self.ann_file}:{lineno}: {what} {info[kind]} does not exist'
                        )
                data_list.append(info)
        return data_list
