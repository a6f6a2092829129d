"""A progress bar: tqdm's when it is installed, a line per quarter otherwise."""

try:
    from tqdm import tqdm
except ImportError:
    tqdm = None


class PlainProgress:
    """Prints a line at every quarter, for when tqdm is not installed."""

    def __init__(self, total, desc):
        self.total, self.desc, self.done, self.reported = total, desc, 0, 0

    def update(self, n):
        self.done += n
        quarter = 4 * self.done // max(self.total, 1)
        if quarter > self.reported:
            self.reported = quarter
            print(f'{self.desc}: {self.done}/{self.total} images', flush=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def make_progress(total, desc):
    if tqdm is None:
        return PlainProgress(total, desc)
    return tqdm(total=total, desc=desc, unit='img', leave=False)
