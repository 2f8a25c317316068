"""Two small models for tests/export: a CNN and a one-layer transformer language model."""
from torch import nn


class SmallCNN(nn.Module):
    """conv 3->channels 3x3 (pad 1), batch norm, ReLU, 2x2 max pool, fc channels*8*8 ->
    classes on 16x16 input (defaults: 8 channels, 10 classes)."""
    def __init__(self, channels=8, classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(channels * 8 * 8, classes)

    def forward(self, x):
        x = self.pool(self.bn(self.conv(x)).relu())
        return self.fc(x.flatten(1))


class SmallLM(nn.Module):
    """One encoder layer, 4 heads, head tied to the embedding (defaults: vocabulary 100,
    d 32, FFN 64)."""
    def __init__(self, vocab=100, d=32, ffn=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.block = nn.TransformerEncoderLayer(d, 4, ffn, dropout=0.0, batch_first=True)
        self.head = nn.Linear(d, vocab)
        self.head.weight = self.embed.weight

    def forward(self, tokens):
        return self.head(self.block(self.embed(tokens)))


def cnn():
    return SmallCNN()


def lm():
    return SmallLM()


class SmallRNN(nn.Module):
    """Vocabulary 50, embedding 16, one LSTM layer of 32, fc 32 -> 50."""
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.lstm = nn.LSTM(16, 32, batch_first=True)
        self.fc = nn.Linear(32, 50)

    def forward(self, tokens):
        return self.fc(self.lstm(self.embed(tokens))[0])


def rnn():
    return SmallRNN()


def frozen():
    """The CNN with every parameter frozen (requires_grad False): nothing to train."""
    m = SmallCNN()
    for p in m.parameters():
        p.requires_grad_(False)
    return m


def parameter_free():
    """No parameters at all."""
    return nn.Sequential(nn.ReLU())
