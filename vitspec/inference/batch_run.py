"""Predicting on many files, with one model or with several heads on one backbone (one model is
the one-head case): batches of equal-size images, one writer per head, bad images skipped and
named, a progress bar in images per second and a summary."""

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from tqdm import tqdm

from vitspec.errors import ConfigError
from vitspec.fileio import FOLDER, check_output
from vitspec.models.detector_classes import detector_classes

from .inputs import BadImage, ImageInput, find_images, read_image
from .large_images import check_slide_settings, slide_predict
from .model_loading import DEPTH, DETECTION, PANOPTIC, SEGMENTATION, LoadedModel, load_model
from .multi_head import MultiHeadModel, MultiHeadPredictor, load_heads
from .prediction import Predictor
from .writers import DepthWriter, DetectionWriter, PanopticModelWriter, SegmentationWriter

ALONE = ''  # the head name of a model alone: its files go into the output folder itself
Model = Union[LoadedModel, MultiHeadModel]


@dataclass
class Summary:
    written: List[dict] = field(default_factory=list)  # per image: kind -> path
    skipped: List[Tuple[Path, str]] = field(default_factory=list)  # (image, why)
    run_files: List[Path] = field(default_factory=list)  # once per run (detections.json)
    seconds: float = 0.0

    def lines(self) -> List[str]:
        rate = len(self.written) / self.seconds if self.seconds else 0.0
        head = (
            f'{len(self.written)} image(s) predicted in {self.seconds:.1f} s '
            f'({rate:.2f} images/s), {len(self.skipped)} skipped'
        )
        files = [f'  wrote {path}' for path in self.run_files]
        return [head, *files, *(f'  skipped {reason}' for _, reason in self.skipped)]


class AlonePredictor:
    """A ``Predictor`` as the one-head case of ``MultiHeadPredictor``: the same ``predict`` and
    ``slide``, results under the head name ``ALONE``."""

    def __init__(self, loaded: LoadedModel, amp: Optional[bool] = None):
        self.predictor = Predictor(loaded, amp=amp)

    def predict(self, images) -> Dict[str, list]:
        return {ALONE: self.predictor.predict(images)}

    def slide(self, bgr, **options) -> dict:
        return {ALONE: slide_predict(self.predictor, bgr, **options)}


def heads_of(model: Model) -> Dict[str, LoadedModel]:
    """{head name: its model}: a ``MultiHeadModel``'s heads, or ``{ALONE: model}``."""
    if isinstance(model, MultiHeadModel):
        return dict(zip(model.names, model.heads))
    return {ALONE: model}


def predictor_of(model: Model, amp: Optional[bool] = None):
    if isinstance(model, MultiHeadModel):
        return MultiHeadPredictor(model, amp=amp)
    return AlonePredictor(model, amp=amp)


def checked_output_dir(out_dir, overwrite: bool = False, inputs: Sequence = ()) -> Path:
    """``out_dir`` checked by the output policy (fileio/outputs.py), nothing created: one that
    holds files is refused unless ``overwrite``, one that holds any of ``inputs`` always."""
    return check_output(out_dir, FOLDER, overwrite=overwrite, inputs=inputs, flag='--out')


def check_settings(loaded_tasks: Sequence[str], batch_size: int, slide: Optional[dict]) -> None:
    """ConfigError, before any work, for settings the run cannot honour: a batch below 1,
    sliding windows out of range or on a model that predicts whole images only."""
    check_slide_settings(batch_size=batch_size, **(slide or {}))
    whole_only = sorted({t for t in loaded_tasks if t not in (SEGMENTATION, DEPTH)})
    if slide is not None and whole_only:
        raise ConfigError(
            f'sliding-window prediction of {" and ".join(whole_only)} models is not supported: '
            f'they predict whole images; drop --slide'
        )


def writer_for(loaded: LoadedModel, out_dir: Path, npy: bool = False):
    if loaded.task == SEGMENTATION:
        num_classes = getattr(getattr(loaded.model, 'decode_head', None), 'num_classes', 0)
        num_classes = num_classes or getattr(loaded.model, 'num_classes', 0)
        return SegmentationWriter(out_dir, loaded.dataset_meta, num_classes)
    if loaded.task == DEPTH:
        return DepthWriter(out_dir, npy=npy)
    if loaded.task == DETECTION:
        return DetectionWriter(out_dir, loaded.dataset_meta, detector_classes(loaded.model))
    if loaded.task == PANOPTIC:
        model = loaded.model
        things, stuff = model.num_things_classes, model.num_stuff_classes
        return PanopticModelWriter(out_dir, loaded.dataset_meta, things, stuff)
    raise NotImplementedError(f'no writer for {loaded.task} models yet')


def prediction_of(sample, task: str):
    """What the task's writer takes of one data sample: (H, W) class indices, (H, W) depth in
    metres, the detected instances, or mmdet's (H, W) panoptic map and the instances (None
    when the model predicts none)."""
    if task == SEGMENTATION:
        return sample.pred_sem_seg.data[0].cpu().numpy()
    if task == DETECTION:
        return sample.pred_instances
    if task == PANOPTIC:
        instances = sample.pred_instances if 'pred_instances' in sample else None
        return sample.pred_panoptic_seg.sem_seg[0].cpu().numpy(), instances
    return sample.pred_depth_map.data[0].float().cpu().numpy()


def same_size_batches(images: Iterable[ImageInput], batch_size: int) -> Iterator[list]:
    """Consecutive images of one size, at most ``batch_size``: mixed sizes would be padded to
    the largest, and a ViT attends to that padding, so an output would depend on its batch."""
    batch = []
    for image in images:
        if batch and (len(batch) == batch_size or image.bgr.shape != batch[0].bgr.shape):
            yield batch
            batch = []
        batch.append(image)
    if batch:
        yield batch


def predict_files(
    model: Model,
    paths: Sequence[Path],
    out_dir,
    batch_size: int = 1,
    amp: Optional[bool] = None,
    npy: bool = False,
    overwrite: bool = False,
    progress: Optional[bool] = None,
    slide: Optional[dict] = None,
) -> Summary:
    """Predict on ``paths`` and write each head's files, named after each image
    (``<stem>_labels.png``, ``<stem>_depth.png``, ...): a model from ``load_model`` into
    ``out_dir``; several heads from ``load_heads`` each into the subfolder named after it
    (``model.names``), as its model alone names them. ``out_dir`` is checked by the output
    policy first (``checked_output_dir``); then ``write_predictions``."""
    checkpoints = [head.checkpoint for head in heads_of(model).values()]
    out = checked_output_dir(out_dir, overwrite, inputs=[*paths, *checkpoints])
    return write_predictions(model, paths, out, batch_size, amp, npy, progress, slide)


def write_predictions(
    model: Model,
    paths: Sequence[Path],
    out: Path,
    batch_size: int = 1,
    amp: Optional[bool] = None,
    npy: bool = False,
    progress: Optional[bool] = None,
    slide: Optional[dict] = None,
) -> Summary:
    """``predict_files`` into ``out``, a folder the output policy has already accepted (created
    here). ``summary.written``: per image, ``image`` and each kind -> its file (one model), or
    head name -> its files (several heads). ``slide``: predict each image in overlapping windows
    at its own scale (``slide_predict``'s window / overlap, ``{}`` for its defaults), every head
    on the same windows, ``batch_size`` windows at a time. ``amp``: see Predictor."""
    heads = heads_of(model)
    check_settings([head.task for head in heads.values()], batch_size, slide)
    writers = {}
    for name, head in heads.items():
        (out / name).mkdir(parents=True, exist_ok=True)
        writers[name] = writer_for(head, out / name, npy=npy)
    predictor = predictor_of(model, amp)
    summary, start = Summary(), time.perf_counter()
    stems = unique_stems(paths)
    with tqdm(total=len(paths), unit='img', disable=progress is False, dynamic_ncols=True) as bar:
        images = _readable(paths, summary, bar, huge=slide is not None)
        for batch in same_size_batches(images, 1 if slide is not None else batch_size):
            if slide is not None:
                windows = dict(batch_size=batch_size, progress=progress is not False, **slide)
                outputs = [predictor.slide(batch[0].bgr, **windows)]
            else:
                batch, outputs = predicted(predictor, heads, batch, summary, bar)
            for image, output in zip(batch, outputs):
                stem = stems[image.path]
                files = {
                    name: writers[name].write(stem, image.bgr, prediction, source=image.path)
                    for name, prediction in output.items()
                }
                summary.written.append(dict(image=image.path, **files.get(ALONE, files)))
            bar.update(len(batch))
    for writer in writers.values():
        if hasattr(writer, 'close'):  # files for the whole run
            files = writer.close()
            summary.run_files.extend(files if isinstance(files, list) else [files])
    summary.seconds = time.perf_counter() - start
    return summary


def predicted(predictor, heads: Dict[str, LoadedModel], batch: list, summary: Summary, bar):
    """(the images of ``batch`` that the input's test pipeline can prepare, per image
    {head name: what its writer takes}); the others go into ``summary.skipped``, named, and the
    run goes on."""
    try:
        samples = predictor.predict([image.bgr for image in batch])
    except BadImage as exc:
        if len(batch) == 1:
            summary.skipped.append((batch[0].path, f'{batch[0].path}: {exc}'))
            bar.update(1)
            return [], []
    else:
        return batch, [
            {name: prediction_of(s[index], heads[name].task) for name, s in samples.items()}
            for index in range(len(batch))
        ]
    kept, outputs = [], []
    for image in batch:
        one, predictions = predicted(predictor, heads, [image], summary, bar)
        kept += one
        outputs += predictions
    return kept, outputs


def _readable(paths, summary: Summary, bar, huge: bool = False):
    """The images of ``paths`` that read; the others go into ``summary.skipped``."""
    for path in paths:
        try:
            yield read_image(path, huge=huge)
        except BadImage as exc:
            summary.skipped.append((path, str(exc)))
            bar.update(1)


def predict(
    checkpoint,
    inputs: Sequence,
    out_dir,
    config=None,
    device: str = 'cpu',
    *,
    check_config: bool = True,
    input_from: Optional[int] = None,
    overwrite: bool = False,
    claim: Optional[Callable[[list], Path]] = None,
    on_loaded: Optional[Callable[[Model, list], None]] = None,
    **options,
) -> Summary:
    """From checkpoint to files in one call: the images of ``inputs`` (files, folders, globs,
    lists), the output folder checked, the model loaded (``load_model``), its files written
    (``write_predictions(..., **options)``). A list of checkpoints (``config`` then a list too,
    or None) is several heads on one backbone (``load_heads``, with ``input_from``).

    The output folder is checked once, before any model loads: by ``claim(inputs)``, which
    returns the folder (a tool's ``claim_outputs``), else by ``checked_output_dir`` with
    ``overwrite``. ``on_loaded(model, paths)`` runs once the model has loaded."""
    several = isinstance(checkpoint, (list, tuple))
    if input_from is not None and not several:
        raise ConfigError('input_from: one model prepares its own input; give several heads')
    paths = find_images(inputs)
    checkpoints = list(checkpoint) if several else [checkpoint]
    if claim is None:
        out = checked_output_dir(out_dir, overwrite, inputs=[*paths, *checkpoints])
    else:
        out = claim([*paths, *checkpoints])
    if several:
        model = load_heads(checkpoint, config, device, input_from, check_config)
    else:
        model = load_model(checkpoint, config, device, check_config)
    if on_loaded is not None:
        on_loaded(model, paths)
    return write_predictions(model, paths, out, **options)


def unique_stems(paths: Sequence[Path]) -> dict:
    """Output names: the file's stem, with its parent folder's name where two stems clash."""
    counts = {}
    for path in paths:
        counts[Path(path).stem] = counts.get(Path(path).stem, 0) + 1
    stems = {}
    for index, path in enumerate(paths):
        path = Path(path)
        stem = path.stem if counts[path.stem] == 1 else f'{path.parent.name}_{path.stem}'
        stems[path] = stem if stem not in stems.values() else f'{stem}_{index}'
    return stems
