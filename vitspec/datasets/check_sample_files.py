"""The pipeline step that checks a sample's files the first time the sample is read in a run.

Placed right after mmcv's ``LoadImageFromFile``, which mmseg's and mmdet's inferencers look for
by name and replace for arrays, and before the plain annotation loaders: a label with values
outside the classes, a depth map in another unit or a panoptic PNG that does not match its JSON
entry stops the run with the file named (``file_checks.check_sample``), and a sample checked
once in this process costs a set lookup of its paths from then on (files are taken not to change
during a run; the next run sees a changed one by its size and modification time). A sample
recorded by the data check before the run (``check_record``) costs an ``os.stat`` per file on
its first read in a process, instead of the check. A sample without annotation files (an image
given to an inferencer, by path or as an array) passes through untouched.
"""

from mmcv.transforms import BaseTransform
from mmdet.registry import TRANSFORMS as MMDET_TRANSFORMS
from mmseg.registry import TRANSFORMS

from .check_record import CheckedSamples, sample_key
from .file_checks import SampleChecks, check_sample, sample_files

# data info keys that only a dataset's sample has (mmseg's and mmdet's datasets)
ANNOTATION_KEYS = ('seg_map_path', 'depth_map_path', 'width', 'height', 'instances')
ANNOTATION_KEYS += ('segments_info',)


def has_annotations(results: dict) -> bool:
    return isinstance(results.get('img_path'), str) and any(
        results.get(k) is not None for k in ANNOTATION_KEYS
    )


@TRANSFORMS.register_module()
class CheckSampleFiles(BaseTransform):
    """Runs ``check_sample`` on each sample the first time it is read (see the module
    docstring). The options are ``SampleChecks``'s; ``record``: the check record to start from
    (None: the default record of these checks, ``check_record.default_record_path``)."""

    def __init__(
        self,
        num_classes=None,
        reduce_zero_label=False,
        ignore_index=255,
        depth_scale=None,
        depth_range=None,
        min_size=3,
        max_aspect_ratio=64,
        color_type='color',
        imdecode_backend='cv2',
        record=None,
    ):
        self.checks = SampleChecks(
            num_classes=num_classes,
            reduce_zero_label=reduce_zero_label,
            ignore_index=ignore_index,
            depth_scale=depth_scale,
            depth_range=None if depth_range is None else tuple(depth_range),
            min_size=min_size,
            max_aspect_ratio=max_aspect_ratio,
            color_type=color_type,
            imdecode_backend=imdecode_backend,
        )
        self.checked = CheckedSamples(self.checks, record)
        # the paths of the samples passed in this process: no stat in the steady state, whose
        # system calls cost more than the check's share of the plain pipeline
        self.passed = set()

    def transform(self, results: dict) -> dict:
        if not has_annotations(results):
            return results
        files = tuple(sample_files(results))
        if files in self.passed:
            return results
        key = sample_key(results, self.checks)
        if key not in self.checked:
            check_sample(results, self.checks)
            self.checked.add(key)
        self.passed.add(files)
        return results

    def __repr__(self) -> str:
        return f'{type(self).__name__}({self.checks})'


MMDET_TRANSFORMS.register_module(module=CheckSampleFiles)
