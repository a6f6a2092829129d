"""Query-token specialization: EoMT's query tokens get their own parameters in the blocks that
carry them, as the CLS token does under the layer specialization of 2602.08626, through the
same layers (`vitspec.layers.specialized`): the query tokens are the row group ``'query'`` of
`TokenLayout` (``num_queries``, right before the patches).

`query_block_parts` gives a query block its parts: its norms, LayerScales and ``attn.qkv``
become specialized layers that serve the query group too (``norm1.query_weight``,
``attn.qkv.query_weight``, ``ls1.query_gamma``, ...), keeping the block's parameters and CLS
copies as they are. The block stays a plain `Block` with its own residual path; the attention
stays one joint attention and the projection and MLP stay shared. A checkpoint without the
query copies fills them from the shared weights, as it fills CLS copies (`shared_key`).
"""

from typing import Optional

from vitspec.errors import ConfigError
from vitspec.layers import Attention, Block, NoLayerScale
from vitspec.layers.specialized import serving_group

QUERY = 'query'


def query_block_parts(
    block: Block, norm: bool = True, qkv: bool = True, layer_scale: Optional[bool] = None
) -> None:
    """Give ``block`` (a `Block` with the joint `Attention`) parts that serve the query rows,
    each starting as the part it replaces (so the block computes what it did), with its
    parameters. ``layer_scale=None``: the LayerScales too when the block has them; True on a
    block without LayerScale is refused."""
    has_ls = not isinstance(block.ls1, NoLayerScale)
    if layer_scale and not has_ls:
        raise ConfigError('query_specialize.layer_scale=True, but the backbone has no LayerScale')
    if type(block) is not Block or type(block.attn) is not Attention:
        raise ConfigError(
            f'query parts go on a plain Block with the joint Attention, got '
            f'{type(block).__name__} with {type(block.attn).__name__}'
        )
    if norm:
        block.norm1, block.norm2 = (
            serving_group(block.norm1, QUERY),
            serving_group(block.norm2, QUERY),
        )
    if layer_scale or (layer_scale is None and has_ls):
        block.ls1, block.ls2 = serving_group(block.ls1, QUERY), serving_group(block.ls2, QUERY)
    if qkv:
        block.attn.qkv = serving_group(block.attn.qkv, QUERY)
