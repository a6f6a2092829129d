"""vitspec.diagnostics.failure_reason: the one line a failed training command is reported by."""

from vitspec.diagnostics.failure_reason import failure_reason

RANK_TRACEBACK = """[rank{rank}]: Traceback (most recent call last):
[rank{rank}]:   File "tools/train.py", line 9, in <module>
[rank{rank}]: {error}
"""
# torchrun's summary when a rank fails, as torch.distributed.run prints it (values made up)
SUMMARY = """Traceback (most recent call last):
  File "torch/distributed/launcher/api.py", line 386, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
tools/train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  rank      : {other} (local_rank: {other})
  exitcode  : -15 (pid: 101)  (SIGTERM)
  traceback : Signal 15 (SIGTERM) received by PID 101
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-06_03:23:51
  rank      : {rank} (local_rank: {rank})
  exitcode  : {code} (pid: 102) {signal}
  error_file: <N/A>
============================================================
"""


def torchrun_output(rank, code, signal='', errors=()):
    tracebacks = ''.join(RANK_TRACEBACK.format(rank=r, error=e) for r, e in errors)
    summary = SUMMARY.format(rank=rank, other=1 - rank, code=code, signal=signal)
    return 'INFO - Iter(train) [1/2]\n' + tracebacks + summary


def test_a_rank_that_raised_is_named_with_its_exception_not_the_launchers():
    output = torchrun_output(
        1, 1, errors=[(0, 'RuntimeError: peer hung up'), (1, "KeyError: 'img_path'")]
    )
    assert failure_reason(output) == "rank 1, exit code 1: KeyError: 'img_path'"
    output = torchrun_output(0, 1, errors=[(0, 'RuntimeError: peer hung up')])
    assert failure_reason(output) == 'rank 0, exit code 1: RuntimeError: peer hung up'


def test_a_killed_rank_is_named_with_its_signal_and_no_other_ranks_exception():
    output = torchrun_output(1, -9, '(SIGKILL)', errors=[(0, 'RuntimeError: peer hung up')])
    assert failure_reason(output) == 'rank 1, exit code -9 (SIGKILL)'


def test_one_process_gives_the_exception_raised_last_or_else_the_last_line():
    chained = (
        'Traceback (most recent call last):\nValueError: first\n\nDuring handling of the above '
        'exception, another exception occurred:\n\nTraceback (most recent call last):\n'
        'vitspec.config.errors.ConfigError: unknown key model.backbon\n'
    )
    assert failure_reason(chained) == 'vitspec.config.errors.ConfigError: unknown key model.backbon'
    assert failure_reason('UserWarning: ignored\nKilled\n') == 'Killed'
    assert failure_reason('') == ''
    assert len(failure_reason('x' * 1000, limit=40)) == 40
