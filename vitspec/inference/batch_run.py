"""Predicting on many files: batches of equal-size images, one writer per task, bad images
skipped and named, a progress bar in images per second and a summary."""

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple

from tqdm import tqdm

from vitspec.errors import ConfigError
from vitspec.fileio import FOLDER, check_output
from vitspec.models.detector_classes import detector_classes

from .inputs import BadImage, ImageInput, find_images, read_image
from .large_images import check_slide_settings, slide_predict
from .model_loading import DEPTH, DETECTION, PANOPTIC, SEGMENTATION, LoadedModel, load_model
from .multi_head import MultiHeadPredictor, load_heads
from .prediction import Predictor
from .writers import DepthWriter, DetectionWriter, PanopticModelWriter, SegmentationWriter


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


def prepare_output_dir(out_dir, overwrite: bool = False, inputs: Sequence = ()) -> Path:
    """Create ``out_dir`` by the output policy (fileio/outputs.py): one that holds files is
    refused unless ``overwrite``, one that holds any of ``inputs`` always."""
    out = check_output(out_dir, FOLDER, overwrite=overwrite, inputs=inputs, flag='--out')
    out.mkdir(parents=True, exist_ok=True)
    return out


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
    loaded: LoadedModel,
    paths: Sequence[Path],
    out_dir,
    batch_size: int = 1,
    amp: Optional[bool] = None,
    npy: bool = False,
    overwrite: bool = False,
    progress: Optional[bool] = None,
    slide: Optional[dict] = None,
) -> Summary:
    """Predict on ``paths`` and write each task's files into ``out_dir``, named after each
    image (``<stem>_labels.png``, ``<stem>_depth.png``, ...). ``slide``: predict each image
    in overlapping windows at its own scale (``slide_predict``'s window / overlap, ``{}`` for
    its defaults); its windows run ``batch_size`` at a time. ``amp``: see Predictor."""
    check_settings([loaded.task], batch_size, slide)
    out = prepare_output_dir(out_dir, overwrite, inputs=[*paths, loaded.checkpoint])
    writer = writer_for(loaded, out, npy=npy)
    predictor = Predictor(loaded, amp=amp)
    summary, start = Summary(), time.perf_counter()
    stems = unique_stems(paths)
    bar = tqdm(total=len(paths), unit='img', disable=progress is False, dynamic_ncols=True)

    with bar:
        images = _readable(paths, summary, bar, huge=slide is not None)
        for batch in same_size_batches(images, 1 if slide is not None else batch_size):
            if slide is not None:
                outputs = [
                    slide_predict(
                        predictor,
                        batch[0].bgr,
                        batch_size=batch_size,
                        progress=progress is not False,
                        **slide,
                    )
                ]
            else:
                batch, samples = predicted(predictor, batch, summary, bar)
                outputs = [prediction_of(sample, loaded.task) for sample in samples]
            for image, output in zip(batch, outputs):
                written = writer.write(stems[image.path], image.bgr, output, source=image.path)
                summary.written.append(dict(image=image.path, **written))
            bar.update(len(batch))
    if hasattr(writer, 'close'):  # files for the whole run
        files = writer.close()
        summary.run_files.extend(files if isinstance(files, list) else [files])
    summary.seconds = time.perf_counter() - start
    return summary


def predict_files_heads(
    multi,
    paths: Sequence[Path],
    out_dir,
    batch_size: int = 1,
    amp: Optional[bool] = None,
    npy: bool = False,
    overwrite: bool = False,
    progress: Optional[bool] = None,
    slide: Optional[dict] = None,
) -> Summary:
    """``predict_files`` for a ``MultiHeadModel`` (multi_head.py): each head's files, named as
    its model alone names them, in the subfolder of ``out_dir`` named after the head
    (``multi.names``). ``summary.written``: per image, ``image`` and head name -> its files.
    ``slide``: as ``predict_files``', every head on the same windows."""
    check_settings([head.task for head in multi.heads], batch_size, slide)
    out = prepare_output_dir(
        out_dir, overwrite, inputs=[*paths, *(h.checkpoint for h in multi.heads)]
    )
    writers = {}
    for name, head in zip(multi.names, multi.heads):
        (out / name).mkdir(exist_ok=True)
        writers[name] = writer_for(head, out / name, npy=npy)
    tasks = dict(zip(multi.names, (head.task for head in multi.heads)))
    predictor = MultiHeadPredictor(multi, amp=amp)
    summary, start = Summary(), time.perf_counter()
    stems = unique_stems(paths)
    with tqdm(total=len(paths), unit='img', disable=progress is False, dynamic_ncols=True) as bar:
        images = _readable(paths, summary, bar, huge=slide is not None)
        for batch in same_size_batches(images, 1 if slide is not None else batch_size):
            if slide is not None:
                slid = predictor.slide(
                    batch[0].bgr, batch_size=batch_size, progress=progress is not False, **slide
                )
                outputs = [slid]
            else:
                samples = predictor.predict([image.bgr for image in batch])
                outputs = [
                    {name: prediction_of(s[index], tasks[name]) for name, s in samples.items()}
                    for index in range(len(batch))
                ]
            for image, output in zip(batch, outputs):
                written = dict(image=image.path)
                for name, prediction in output.items():
                    stem = stems[image.path]
                    written[name] = writers[name].write(
                        stem, image.bgr, prediction, source=image.path
                    )
                summary.written.append(written)
            bar.update(len(batch))
    summary.seconds = time.perf_counter() - start
    return summary


def predicted(predictor, batch: list, summary: Summary, bar) -> Tuple[list, list]:
    """(the images of ``batch`` that the model's pipeline can prepare, their predictions);
    the others go into ``summary.skipped``, named, and the run goes on."""
    try:
        return batch, predictor.predict([image.bgr for image in batch])
    except BadImage as exc:
        if len(batch) == 1:
            summary.skipped.append((batch[0].path, f'{batch[0].path}: {exc}'))
            bar.update(1)
            return [], []
    kept, samples = [], []
    for image in batch:
        one, predictions = predicted(predictor, [image], summary, bar)
        kept += one
        samples += predictions
    return kept, samples


def _readable(paths, summary: Summary, bar, huge: bool = False):
    """The images of ``paths`` that read; the others go into ``summary.skipped``."""
    for path in paths:
        try:
            yield read_image(path, huge=huge)
        except BadImage as exc:
            summary.skipped.append((path, str(exc)))
            bar.update(1)


def predict(
    checkpoint, inputs: Sequence, out_dir, config=None, device: str = 'cpu', **options
) -> Summary:
    """The whole of tools/infer.py in one call: ``load_model(checkpoint, config, device)``, the
    images of ``inputs`` (files, folders, globs, lists), ``predict_files(..., **options)``.
    A list of checkpoints (``config`` then a list too, or None) is several heads on one
    backbone: ``load_heads`` and ``predict_files_heads`` (``input_from`` among ``options``)."""
    if isinstance(checkpoint, (list, tuple)):
        input_from = options.pop('input_from', None)
        multi = load_heads(checkpoint, config, device, input_from=input_from)
        return predict_files_heads(multi, find_images(inputs), out_dir, **options)
    loaded = load_model(checkpoint, config, device)
    return predict_files(loaded, find_images(inputs), out_dir, **options)


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
