# A frozen-backbone probe, segmentation or depth: runtime_seg.py plus LinearProbeHook, which
# refuses a backbone that still trains or sits in the optimizer and keeps it in eval mode. The
# model freezes the backbone (SpecViT frozen_stages = num_layers); the optimizer constructor
# (LayerDecayOptimWrapperConstructor, or mmengine's default) leaves frozen parameters out.
_base_ = ['./runtime_seg.py']
custom_hooks = [*_base_.custom_hooks, dict(type='LinearProbeHook')]
