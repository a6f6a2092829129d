"""An exported file run by onnxruntime on CPU, and its difference from PyTorch."""

import json
from typing import Dict, List, Sequence

import numpy as np
import torch

from vitspec.errors import InputShapeError


class OnnxModel:
    """An onnxruntime CPU session of ``path``; calling it with an image batch (tensor or array)
    returns the outputs as numpy arrays, in the file's output order."""

    def __init__(self, path: str, threads: int = 0):
        import onnxruntime as ort

        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), options, providers=['CPUExecutionProvider'])
        self.input_name = self.session.get_inputs()[0].name
        self.output_names = [o.name for o in self.session.get_outputs()]

    @property
    def metadata(self) -> Dict[str, object]:
        props = self.session.get_modelmeta().custom_metadata_map
        return {k: json.loads(v) for k, v in props.items()}

    def input_shape(self) -> list:
        """The image input's shape: ints where fixed, names where symbolic."""
        return self.session.get_inputs()[0].shape

    def __call__(self, image) -> List[np.ndarray]:
        if isinstance(image, torch.Tensor):
            image = image.detach().cpu().numpy()
        return self.session.run(None, {self.input_name: np.ascontiguousarray(image, np.float32)})


def max_abs_difference(onnx_outputs: Sequence[np.ndarray], torch_outputs) -> float:
    """The largest |onnx - torch| over the float outputs (integer outputs such as labels are
    compared by `label_agreement`)."""
    if isinstance(torch_outputs, torch.Tensor):
        torch_outputs = (torch_outputs,)
    if len(onnx_outputs) != len(torch_outputs):
        counts = f'{len(onnx_outputs)} ONNX outputs against {len(torch_outputs)} torch ones'
        raise InputShapeError(counts)
    worst = 0.0
    for got, ref in zip(onnx_outputs, torch_outputs):
        ref = ref.detach().cpu().numpy()
        if got.shape != ref.shape:
            raise InputShapeError(f'ONNX output of shape {got.shape}, torch {ref.shape}')
        if np.issubdtype(ref.dtype, np.floating):
            worst = max(worst, float(np.abs(got.astype(np.float64) - ref).max(initial=0.0)))
    return worst


def label_agreement(onnx_labels: np.ndarray, torch_labels: torch.Tensor) -> float:
    """The fraction of pixels whose label is the same."""
    return float((onnx_labels == torch_labels.cpu().numpy()).mean())
