from .sequential_neck import SequentialNeck
from .simple_fpn import SimpleFPN

__all__ = ['SequentialNeck', 'SimpleFPN']
