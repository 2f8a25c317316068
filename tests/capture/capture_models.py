"""Two models for tests/capture, each just over DDP's 1 MiB first bucket so that a small
bucket_cap_mb gives several GradBuckets: a CNN and a one-layer transformer LM."""
from torch import nn


class CaptureCNN(nn.Module):
    """conv 3->16 3x3, batch norm, ReLU, 2x2 pool, fc 16*8*8 -> 300 (307,500 parameters)."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 8 * 8, 300)

    def forward(self, x):
        return self.fc(self.pool(self.bn(self.conv(x)).relu()).flatten(1))


class CaptureLM(nn.Module):
    """Vocabulary 2000, d 128, 4 heads, FFN 1024, one encoder layer, head tied to the embedding."""
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(2000, 128)
        self.block = nn.TransformerEncoderLayer(128, 4, 1024, dropout=0.0, batch_first=True)
        self.head = nn.Linear(128, 2000)
        self.head.weight = self.embed.weight

    def forward(self, tokens):
        return self.head(self.block(self.embed(tokens)))
