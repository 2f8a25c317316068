"""Two models for tests/capture, each just over DDP's 1 MiB first bucket so that a small
bucket_cap_mb gives several GradBuckets: tests/export's CNN and one-layer transformer LM,
made larger."""
from small_models import SmallCNN, SmallLM


def CaptureCNN():
    """conv 3->16 3x3, batch norm, ReLU, 2x2 pool, fc 16*8*8 -> 300 (307,500 parameters)."""
    return SmallCNN(channels=16, classes=300)


def CaptureLM():
    """Vocabulary 2000, d 128, 4 heads, FFN 1024, one encoder layer, head tied to the embedding."""
    return SmallLM(vocab=2000, d=128, ffn=1024)
