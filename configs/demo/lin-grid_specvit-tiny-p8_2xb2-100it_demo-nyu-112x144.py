# A probe grid on the demo data: tools/dist_train.sh <this config> 2, then the heads' RMSE side by
# side in the log, and the best head in the work dir as best_probe.pth with its own config,
# best_probe.py (a probe of the depth demo's config below). The demo has no pretrained backbone:
# its tiny SpecViT is frozen as initialized from the run's seed, which is enough to show six
# heads (three learning rates x the last block or the last four) trained on one backbone pass.
_base_ = './lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'
model = dict(backbone=dict(frozen_stages=6))
custom_hooks = [*_base_.custom_hooks, dict(type='LinearProbeHook')]
probe_grid = dict(lr=[1e-3, 3e-3, 1e-2], taps=dict(last1=[5], last4=[2, 3, 4, 5]))
