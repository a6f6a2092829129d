"""What the ledger says it read: each row cites the upstream file that sets its value, and no
note or config header keeps a reading that was since replaced."""

from tests.utils import ROOT
from vitspec.ledger.rows import NOT_FOUND, load_ledger, row_fields

LEDGER = load_ledger()
ROWS = {row['id']: row for row in LEDGER['rows']}


def test_the_dino_vit_l_checkpoint_is_read_in_the_large_config():
    """detrex's dino_vitdet_large_4scale_12ep.py sets train.init_checkpoint to the MAE ViT-L file;
    the base config names ViT-B's."""
    for epochs in (12, 50):
        row = ROWS[f'detrex-coco-dino-vitdet-vitl-mae-{epochs}ep-box']
        source = row_fields(LEDGER, row)['model.backbone.init_cfg.checkpoint']['source']
        assert source == f'detrex-dino-vitdet-l{epochs}', epochs
    assert 'mae_pretrain_vit_large.pth' in LEDGER['sources']['detrex-dino-vitdet-l12']


def test_the_specialization_vit_b_twins_cite_the_summary_they_were_read_in():
    """The ViT-B twins have no published number: the summary read gives ViT-L results only."""
    for kind in ('plain', 'spec'):
        row = ROWS[f'spec2602-ade20k-lin-vitb14-{kind}']
        assert row['value'] == NOT_FOUND
        assert 'spec2602-summary' in row['note'] and 'ViT-L results only' in row['note']
        assert 'abstract' not in row['note']


def test_the_depth_probes_gpu_count_says_how_it_was_read():
    source = LEDGER['sources']['dinov2-depth-gpus']
    for read in ('tools/train.py', 'binsformer_swinl_22k_w7.txt', 'n_gpus: 8', 'range(0, 1)'):
        assert read in source, read
    protocols = ('dinov2-depth-nyu-lin', 'dinov2-depth-nyu-dpt', 'dinov2-depth-kitti-lin')
    for protocol in (*protocols, 'dinov2-depth-kitti-dpt'):
        field = LEDGER['protocols'][protocol]['fields']['auto_scale_lr.base_batch_size']
        assert field == {'value': 16, 'source': 'dinov2-depth-gpus'}, protocol
    assert 'GPU count' not in LEDGER['protocols']['dinov2-depth-kitti-dpt']['title']


def test_the_eomt_coco_protocols_record_the_warm_up_and_match_the_layer_decay():
    for protocol in (
        'eomt-dinov2-semantic',
        'eomt-dinov2-coco-panoptic',
        'eomt-dinov2-coco-instance',
    ):
        fields = LEDGER['protocols'][protocol]['fields']
        assert fields['optim_wrapper.constructor']['deviation'].startswith('none:'), protocol
        assert '[500, 1000]' in fields['param_scheduler[0].end']['value'], protocol
        assert fields['param_scheduler[1].begin']['ours'] == 1500, protocol


def test_the_released_vit_g_segmentor_conversion_is_named_in_its_config():
    path = 'configs/ade20k/mask2former_vit-g14-dinov2_vit-adapter_16xb1-80k_ade20k-896x896.py'
    header = (ROOT / path).read_text().split('_base_')[0]
    assert 'not done here' not in header
    assert 'tools/convert_checkpoint.py --format dinov2 --head-config' in header
