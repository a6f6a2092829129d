default_scope = 'mmdet'
custom_imports = dict(imports=['vitspec'], allow_failed_imports=False)
# load_from and --resume refuse a checkpoint that does not fit the model (mmengine's Runner loads
# with strict=False), naming the file and the keys.
runner_type = 'CheckedRunner'
# What every run does, whichever train script starts it (tools/train.py, or mmseg's / mmdet's
# own): safe checkpoint loading and atomic checkpoint writes, an empty dataset named before it
# hangs, a trainable backbone parameter without gradient named at the first step, and a progress
# bar over evaluation batches (on a terminal only); a training set with more classes than the
# detector predicts, or a box label beyond them, stops the run at its start (TargetsCheckHook).
# The optimizer wrapper of every schedule is FiniteLossOptimWrapper (FiniteLossAmpOptimWrapper
# with AMP): a non-finite loss stops the run.
custom_hooks = [
    dict(type='SafeIOHook'),
    dict(type='EmptyDatasetCheckHook'),
    dict(type='UnusedParameterCheckHook'),
    dict(type='EvalProgressBarHook'),
    dict(type='TargetsCheckHook'),
    dict(type='DatasetReportHook'),  # each split's files, samples, ground truth, leftovers
    dict(type='MmcvCudaOpsCheckHook'),  # a CUDA run with CPU-only mmcv ops stops at start
    dict(type='ComputableMetricsHook'),  # a metric of value NaN stops, naming split and why
]
env_cfg = dict(
    cudnn_benchmark=False,
    mp_cfg=dict(mp_start_method='fork', opencv_num_threads=0),
    dist_cfg=dict(backend='nccl'),
)
vis_backends = [dict(type='LocalVisBackend')]
visualizer = dict(type='DetLocalVisualizer', vis_backends=vis_backends, name='visualizer')
log_processor = dict(by_epoch=False)
log_level = 'INFO'
load_from = None
resume = False
# ViTDet reads the last block without SpecViT's final norm, whose parameters then get no
# gradient; DDP must be told to expect that.
find_unused_parameters = True
