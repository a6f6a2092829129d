"""Writing images and JSON documents, creating their folders."""

import json

from PIL import Image


def save_image(array, path, **options):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(array).save(path, **options)


def save_jpeg(array, path):
    save_image(array, path, quality=90)


def write_json(document, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document))
