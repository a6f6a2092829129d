"""Using a trained model on a user's own images (docs/inference.md).

    summary = predict('iter_500.pth', ['photos/'], 'out/', batch_size=4)   # all in one

    loaded = load_model('iter_500.pth')                   # its saved config, strict weights
    summary = predict_files(loaded, find_images(['photos/']), 'out/', batch_size=4)

``Predictor`` runs a model on arrays; ``slide_predict`` runs a segmenter or a depth model on an
image of any size in overlapping windows, holding one band of windows at a time. mmseg's
``MMSegInferencer`` / ``init_model`` and mmdet's ``DetInferencer`` / ``init_detector`` take
vitspec's configs and checkpoints as they are.

Several heads trained apart on one frozen backbone, the backbone run once per batch, go the
same way (one model is the one-head case)::

    heads = load_heads(['seg/iter_500.pth', 'depth/iter_100.pth'])
    summary = predict_files(heads, find_images(['photos/']), 'out/')  # out/seg/, out/depth/
    summary = predict(['seg/iter_500.pth', 'depth/iter_100.pth'], ['photos/'], 'out/')
"""

from .batch_run import Summary, predict, predict_files, write_predictions
from .devices import checked_device
from .inputs import BadImage, find_images, read_image
from .model_loading import DEPTH, DETECTION, PANOPTIC, SEGMENTATION, LoadedModel, load_model
from .multi_head import MultiHeadModel, MultiHeadPredictor, load_heads
from .prediction import Predictor

__all__ = [
    'BadImage',
    'DEPTH',
    'DETECTION',
    'LoadedModel',
    'MultiHeadModel',
    'MultiHeadPredictor',
    'PANOPTIC',
    'Predictor',
    'SEGMENTATION',
    'Summary',
    'checked_device',
    'find_images',
    'load_heads',
    'load_model',
    'predict',
    'predict_files',
    'read_image',
    'write_predictions',
]
