#!/usr/bin/env python
"""Write the procedural demo datasets (vitspec.demo) in the native layouts of ADE20K,
Cityscapes, COCO, NYU-Depth v2 and KITTI.

Every image comes from one scene generator: "stuff" in the background (sky / building / trees
above a road, or a wall above a floor) and 2-5 standing "things" (rectangles, ellipses,
triangles). Each class has its own colour and texture; texture and brightness follow the
per-pixel depth of a pinhole camera over a ground plane, so depth is learnable from the image.
Output is deterministic for a given --seed (and Pillow / zlib version).

    python tools/make_demo_data.py                      # all five into data/demo/
    python tools/make_demo_data.py --datasets coco nyu --num-train 20 --num-val 5 --out /tmp/demo

A dataset is written into a hidden temporary folder and renamed into place with a `.complete`
marker (seed, counts, generator version); a run that finds a matching marker skips that dataset.
"""

import sys
from pathlib import Path

from vitspec.demo.cli import main

DEFAULT_OUT = Path(__file__).resolve().parents[1] / 'data' / 'demo'

if __name__ == '__main__':
    sys.exit(main(default_out=DEFAULT_OUT))
