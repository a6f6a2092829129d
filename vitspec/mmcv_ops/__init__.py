"""mmcv's ops (NMS, RoIAlign, deformable convolution and attention, focal loss) in vitspec, from
the kernels they run on to the proof that they run right and how fast.

- ``kernels/``: mmcv's compiled-ops module in PyTorch and torchvision. tools/install.sh builds
  mmcv 2.1.0 without its C++/CUDA ops and copies this folder into the wheel as ``mmcv._ext``
  (tools/mmcv_wheel.py keys the cached wheel by its content), so mmcv's own Python ops run on it
  on every device. It imports nothing from vitspec: mmseg and mmdet import it while vitspec may
  be half imported, and in the wheel there is no vitspec. ``tools/install.sh --mmcv-ops``
  installs mmcv's compiled library instead.
- ``installed``: which kernels the installed mmcv runs on (these, compiled, or none in
  mmcv-lite) and whether they serve a device, read without running them.
- ``kernel_sets``: both kernel sets in one process and the switch between them.
- ``autocast``: with the compiled build, the ops whose kernels refuse float16 / bfloat16 run in
  float32 under autocast (the kernels here do so themselves).
- ``device_check``: ``MmcvCudaOpsCheckHook``, the run-time check: a run stops before its first
  iteration when the ops have no kernels for the model's device. Registered in mmengine's HOOKS
  when ``vitspec.engine`` is imported; configs declare it (configs/_base_/runtime_det.py).
- ``device_parity``: the ops on a device against the same ops on CPU (tools/gpu_check.sh).
- ``benchmark``: these kernels against the compiled ones, timed through mmcv's ops
  (tools/benchmark.py --mmcv-ops).

Parity with the compiled build is tested against outputs it recorded
(tools/record_mmcv_references.py, tests/mmcv_ops/kernels/compiled_ops_reference.pt).

The modules sit on different floors of the package's import order (tests/test_import_graph.py):
the kernels import nothing from vitspec; ``installed``, ``kernel_sets``, ``autocast`` and
``device_check`` only vitspec's errors, below ``vitspec.engine``, which uses them; the benchmark
beside ``vitspec.benchmarking``, the parity check beside ``vitspec.diagnostics``. Each module is
imported on its own; importing this package imports none of them.
"""
