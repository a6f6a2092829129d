"""SharedBackbone runs its backbone once per input: the same tensor, or the same window of the
same memory, is served from what it remembers; another tensor, or the same one written since, is
run again; a view hands each head the outputs its own backbone would have returned."""

import torch
from torch import nn

from vitspec.models.shared_backbone import BackboneView, SharedBackbone


class Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return tuple((x.mean() * (i + 1), x.sum()) for i in range(3))


def test_same_memory_is_served_and_new_memory_is_run():
    backbone = Counting()
    shared = SharedBackbone(backbone, out_indices=[0, 1, 2], keep=4)
    image = torch.rand(1, 3, 8, 8)
    shared(image)
    shared(image[:, :, 0:4, 0:4])
    shared(image[:, :, 0:4, 0:4])  # a new view object of the same window
    assert backbone.calls == 2
    image.add_(1)  # written: its version changed
    shared(image)
    assert backbone.calls == 3
    shared(image.clone())
    assert backbone.calls == 4
    shared.release()
    shared(image)
    assert backbone.calls == 5


def test_keep_limits_what_is_remembered():
    backbone = Counting()
    shared = SharedBackbone(backbone, out_indices=[0, 1, 2])
    a, b = torch.rand(1, 3, 4, 4), torch.rand(1, 3, 4, 4)
    shared(a), shared(b), shared(a)
    assert backbone.calls == 3


def test_view_picks_its_indices_and_cls():
    shared = SharedBackbone(Counting(), out_indices=[0, 1, 2])
    image = torch.rand(1, 3, 4, 4)
    full = shared(image)
    maps_only = BackboneView(shared, out_indices=[2, 0], cls=False)(image)
    with_cls = BackboneView(shared, out_indices=[1], cls=True)(image)
    assert [m.item() for m in maps_only] == [full[0][0].item(), full[2][0].item()]
    assert with_cls == (full[1],)
    assert 'shared' not in dict(BackboneView(shared).named_children())
