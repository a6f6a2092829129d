"""The demo COCO panoptic files: every PNG's ids are its JSON segments, the categories are COCO
panoptic's (things as the instances file, 53 stuff), and each thing segment is the instance of
the instances file with the same category, box and area."""

import json

import numpy as np
from PIL import Image

from tests.utils import make_demo_data
from vitspec.fileio.panoptic_png import rgb2id


def test_panoptic_pngs_json_and_instances_agree(tmp_path):
    root = make_demo_data(tmp_path, 'coco', 3, 2)
    for split in ('train2017', 'val2017'):
        pan = json.loads((root / 'annotations' / f'panoptic_{split}.json').read_text())
        inst = json.loads((root / 'annotations' / f'instances_{split}.json').read_text())
        cats = {c['id']: c for c in pan['categories']}
        assert sum(1 for c in cats.values() if c['isthing']) == 80
        assert sum(1 for c in cats.values() if not c['isthing']) == 53
        assert [c['id'] for c in pan['categories']] == sorted(cats)  # things first, in id order
        for entry in pan['annotations']:
            ids = rgb2id(
                np.array(
                    Image.open(root / 'annotations' / f'panoptic_{split}' / entry['file_name'])
                )
            )
            segments = entry['segments_info']
            assert set(np.unique(ids).tolist()) - {0} == {s['id'] for s in segments}
            for s in segments:
                assert s['category_id'] in cats and (ids == s['id']).sum() == s['area']
            things = sorted(
                (s['category_id'], s['area'], s['bbox'])
                for s in segments
                if cats[s['category_id']]['isthing']
            )
            instances = sorted(
                (a['category_id'], int(a['area']), [int(v) for v in a['bbox']])
                for a in inst['annotations']
                if a['image_id'] == entry['image_id']
            )
            assert things == instances
            assert any(not cats[s['category_id']]['isthing'] for s in segments)
