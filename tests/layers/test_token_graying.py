import pytest
import torch

from vitspec.analysis.feature_maps import load_image, to_input
from vitspec.layers.dct import dct
from vitspec.layers.token_graying import (
    TokenGraying,
    dct_graying,
    dct_graying_by_matrices,
    patchify,
    svd_graying,
    unpatchify,
)


@pytest.fixture(scope='module')
def images(realdata):
    paths = (
        sorted((realdata / 'ade20k/ADEChallengeData2016/images/validation').glob('*.jpg'))[:2]
        + sorted((realdata / 'coco/train2017').glob('*.jpg'))[:2]
    )
    assert len(paths) == 4
    # shorter side to 224, centre crop, ImageNet mean/std: what the data preprocessor feeds
    return torch.stack([to_input(load_image(p, 224), patch=16)[0] for p in paths])


def singular_values(img, patch_size=16):
    return torch.linalg.svdvals(patchify(img.double(), patch_size))


def log_kappa(img):
    s = singular_values(img)
    return (s[:, 0] / s[:, -1]).log()


@pytest.mark.parametrize('eps', [0.5, 0.7, 0.9])
@pytest.mark.slow
def test_svd_sets_condition_number_to_power_eps(images, eps):
    out = TokenGraying(16, 'svd', eps=eps)(images)
    before, after = log_kappa(images), log_kappa(out)
    assert (before > 5).all()  # real images are badly conditioned: kappa > e^5
    torch.testing.assert_close(after, eps * before, atol=1e-3, rtol=0)
    # the scale is kept: the largest singular value is unchanged
    torch.testing.assert_close(
        singular_values(out)[:, 0], singular_values(images)[:, 0], rtol=1e-5, atol=0
    )


@pytest.mark.slow
def test_dct_lowers_condition_number(images):
    before = log_kappa(images)
    previous = before
    for eps in (0.95, 0.9, 0.7, 0.5):
        after = log_kappa(TokenGraying(16, 'dct', eps=eps)(images))
        assert (after < previous).all(), (eps, after, previous)  # smaller eps, better conditioned
        previous = after
    assert (previous < 0.6 * before).all()  # eps 0.5 about halves log kappa on real images


def test_dct_keeps_max_coefficient_and_grows_norm(images):
    tokens = patchify(images, 16)
    out = dct_graying(tokens, 0.7)
    c_in, c_out = dct(dct(tokens, -1), -2), dct(dct(out, -1), -2)
    torch.testing.assert_close(
        c_out.abs().amax(dim=(1, 2)), c_in.abs().amax(dim=(1, 2)), rtol=1e-5, atol=0
    )
    assert torch.equal(c_out.sign(), c_in.sign())
    assert (out.norm(dim=(1, 2)) > tokens.norm(dim=(1, 2))).all()


@pytest.mark.parametrize('fn', [svd_graying, dct_graying])
def test_eps_one_round_trip_is_identity(images, fn):
    tokens = patchify(images, 16)
    torch.testing.assert_close(fn(tokens, 1.0), tokens, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize('mode', ['svd', 'dct'])
def test_module_eps_one_is_identity(mode):
    x = torch.randn(2, 3, 32, 48)
    assert torch.equal(TokenGraying(16, mode, eps=1.0)(x), x)


def test_patchify_round_trip_and_layout():
    x = torch.randn(2, 3, 32, 48)
    tokens = patchify(x, 16)
    assert tokens.shape == (2, 6, 16 * 16 * 3)
    # row 4 is the patch at grid (1, 1); columns are (p, q, c)
    torch.testing.assert_close(
        tokens[:, 4].reshape(2, 16, 16, 3), x[:, :, 16:32, 16:32].permute(0, 2, 3, 1)
    )
    assert torch.equal(unpatchify(tokens, 16, x.shape), x)


@pytest.mark.parametrize('mode', ['svd', 'dct'])
def test_shape_dtype_and_per_sample(mode):
    torch.manual_seed(0)
    x = torch.randn(2, 3, 32, 64)
    tg = TokenGraying(16, mode, eps=0.6)
    out = tg(x)
    assert out.shape == x.shape and out.dtype == x.dtype and torch.isfinite(out).all()
    for i in range(2):  # each image is transformed on its own
        torch.testing.assert_close(out[i : i + 1], tg(x[i : i + 1]), atol=1e-5, rtol=1e-5)
    out16 = tg(x.bfloat16())
    assert out16.dtype == torch.bfloat16 and out16.shape == x.shape
    torch.testing.assert_close(out16.float(), tg(x.bfloat16().float()).bfloat16().float())
    with torch.autocast('cpu', dtype=torch.bfloat16):
        torch.testing.assert_close(tg(x), out)  # float32 inside autocast


@pytest.mark.parametrize('mode', ['svd', 'dct'])
def test_all_zero_image_stays_zero(mode):
    out = TokenGraying(8, mode, eps=0.5)(torch.zeros(1, 3, 16, 16))
    assert torch.equal(out, torch.zeros_like(out))


def test_invalid_arguments():
    with pytest.raises(ValueError, match='mode'):
        TokenGraying(16, 'fft', eps=0.5)
    for eps in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match='eps'):
            TokenGraying(16, 'dct', eps=eps)
    with pytest.raises(ValueError, match='multiple of the patch size'):
        TokenGraying(16, 'svd', eps=0.5)(torch.randn(1, 3, 20, 32))


def test_dct_by_matrices_equals_the_fft_form():
    tokens = torch.randn(2, 15, 48)
    assert torch.allclose(dct_graying_by_matrices(tokens, 0.6), dct_graying(tokens, 0.6), atol=1e-5)


def test_an_exported_dct_graying_takes_the_matrices_and_follows_the_size():
    """The FFT form has complex tensors and a plan cache keyed on the length; while exporting the
    layer takes the DCT matrices, which follow a symbolic size."""
    layer = TokenGraying(4, 'dct', eps=0.6)
    dims = ({0: torch.export.Dim.AUTO, 2: torch.export.Dim.AUTO, 3: torch.export.Dim.AUTO},)
    program = torch.export.export(layer, (torch.randn(2, 3, 12, 20),), dynamic_shapes=dims)
    graphs = [m.graph for m in program.graph_module.modules() if hasattr(m, 'graph')]
    ops = {str(n.target) for g in graphs for n in g.nodes if n.op == 'call_function'}
    assert 'aten.matmul.default' in ops and not any('fft' in op for op in ops), ops
    for shape in [(2, 3, 12, 20), (3, 3, 16, 8)]:
        image = torch.randn(shape)
        assert torch.allclose(program.module()(image), layer(image), atol=1e-5)
