from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).parent


def requirements():
    lines = (ROOT / 'requirements.txt').read_text().splitlines()
    reqs = [l.strip() for l in lines if l.strip() and not l.startswith('#')]
    return [r for r in reqs if not r.startswith('pytest')]


setup(
    name='vitspec',
    version='0.1.0',
    description='Dense prediction (segmentation, detection, depth) with ViT backbone techniques',
    long_description=(ROOT / 'README.md').read_text(encoding='utf-8'),
    long_description_content_type='text/markdown',
    packages=find_packages(include=['vitspec', 'vitspec.*']),
    python_requires='>=3.10',
    # torch / torchvision / mmcv (with compiled ops) are installed by tools/install.sh
    install_requires=requirements(),
    license='Apache-2.0',
)
