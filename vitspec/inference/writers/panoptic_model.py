"""What a panoptic model (e.g. EoMTPanoptic) predicts, both written: its panoptic segmentation
(PanopticWriter) and, when its test_cfg has ``instance_on``, its instances (DetectionWriter,
with the same category ids)."""

from pathlib import Path
from typing import List

import numpy as np

from .detection import DetectionWriter
from .panoptic import PanopticWriter


class PanopticModelWriter:
    def __init__(self, out_dir: Path, dataset_meta: dict, num_things: int, num_stuff: int):
        self.panoptic = PanopticWriter(out_dir, dataset_meta, num_things, num_stuff)
        self.detection = DetectionWriter(
            out_dir, dataset_meta, num_things + num_stuff, self.panoptic.category_ids
        )
        self.wrote_instances = False

    def write(self, stem: str, bgr: np.ndarray, prediction, source=None) -> dict:
        """``prediction``: (mmdet's (H, W) panoptic map, ``pred_instances`` or None)."""
        panoptic, instances = prediction
        written = self.panoptic.write(stem, bgr, panoptic, source=source)
        if instances is not None:
            written.update(self.detection.write(stem, bgr, instances, source=source))
            self.wrote_instances = True
        return written

    def close(self) -> List[Path]:
        files = [self.panoptic.close()]
        if self.wrote_instances:
            files.append(self.detection.close())
        return files
