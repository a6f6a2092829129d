"""The writer of each dataset's layout: writer(root, counts, seed, progress)."""

from .ade20k import write_ade20k
from .cityscapes import write_cityscapes
from .coco import write_coco
from .kitti import write_kitti
from .nyu import write_nyu
from .voc import write_voc

WRITERS = {
    'ade20k': write_ade20k,
    'cityscapes': write_cityscapes,
    'coco': write_coco,
    'nyu': write_nyu,
    'kitti': write_kitti,
    'voc': write_voc,
}
