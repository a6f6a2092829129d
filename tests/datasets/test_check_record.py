"""Sample keys from the files' path, size and modification time, and the record of checked
samples: written atomically, read back, kept apart by the checks' settings."""

import os

from vitspec.datasets.check_record import (
    CheckedSamples,
    default_record_path,
    load_record,
    sample_key,
    write_record,
)
from vitspec.datasets.file_checks import SampleChecks

CHECKS = SampleChecks(num_classes=3)


def sample(tmp_path):
    (tmp_path / 'a.jpg').write_bytes(b'image')
    (tmp_path / 'a.png').write_bytes(b'label')
    return dict(img_path=str(tmp_path / 'a.jpg'), seg_map_path=str(tmp_path / 'a.png'))


def test_the_key_changes_with_a_file_s_size_or_time_and_with_the_checks(tmp_path):
    info = sample(tmp_path)
    key = sample_key(info, CHECKS)
    assert key == sample_key(dict(info), CHECKS)
    assert key != sample_key(info, SampleChecks(num_classes=4))
    assert key != sample_key(dict(info, reduce_zero_label=True), CHECKS)
    label = tmp_path / 'a.png'
    st = label.stat()
    os.utime(label, ns=(st.st_atime_ns, st.st_mtime_ns + 1000))
    touched = sample_key(info, CHECKS)
    assert touched != key
    label.write_bytes(b'labels')  # another size
    os.utime(label, ns=(st.st_atime_ns, st.st_mtime_ns + 1000))
    assert sample_key(info, CHECKS) not in (key, touched)


def test_a_sample_with_a_missing_file_has_no_key(tmp_path):
    info = sample(tmp_path)
    (tmp_path / 'a.png').unlink()
    assert sample_key(info, CHECKS) is None


def test_the_panoptic_segments_and_coco_size_are_part_of_the_key(tmp_path):
    info = dict(sample(tmp_path), width=4, height=3, segments_info=[dict(id=5)])
    key = sample_key(info, CHECKS)
    assert key != sample_key(dict(info, width=5), CHECKS)
    assert key != sample_key(dict(info, segments_info=[dict(id=6)]), CHECKS)


def test_record_round_trip_and_its_default_place(tmp_path, monkeypatch):
    monkeypatch.setenv('VITSPEC_CACHE', str(tmp_path / 'cache'))
    path = default_record_path(CHECKS)
    assert path == tmp_path / 'cache' / 'checked_samples' / f'{CHECKS.key()}.txt'
    assert load_record(path) == set()
    write_record(path, ['b', 'a', 'a'])
    assert path.read_text() == 'a\nb\n'
    assert load_record(path) == {'a', 'b'}
    assert not [p for p in path.parent.iterdir() if p.name.endswith('.tmp')]


def test_checked_samples_start_from_the_record(tmp_path):
    record = tmp_path / 'record.txt'
    write_record(record, ['known'])
    checked = CheckedSamples(CHECKS, record)
    assert 'known' in checked and 'new' not in checked and None not in checked
    checked.add('new')
    checked.add(None)
    assert 'new' in checked and None not in checked
