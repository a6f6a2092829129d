# The procedural demo data in NYU's layout (tools/make_demo_data.py): 120x160 images, 16-bit
# millimetre depth. NYU's own pipelines and metric; the training region scales to the small
# images (107x142), so the 416x544 random crop keeps all of it.
_base_ = ['./nyu_depth.py']
data_root = 'data/demo/nyu'
crop_size = (112, 144)  # the padded training input (size divisor 8)
train_dataloader = dict(
    batch_size=4, num_workers=0, persistent_workers=False, dataset=dict(data_root=data_root)
)
val_dataloader = dict(num_workers=0, persistent_workers=False, dataset=dict(data_root=data_root))
test_dataloader = val_dataloader
