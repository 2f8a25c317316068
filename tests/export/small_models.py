"""Two small models for tests/export: a CNN and a one-layer transformer language model."""
from torch import nn


class SmallCNN(nn.Module):
    """conv 3->8 3x3 (pad 1), batch norm, ReLU, 2x2 max pool, fc 8*8*8 -> 10 on 16x16 input."""
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        x = self.pool(self.bn(self.conv(x)).relu())
        return self.fc(x.flatten(1))


class SmallLM(nn.Module):
    """Vocabulary 100, d 32, 4 heads, FFN 64, one encoder layer, head tied to the embedding."""
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 32)
        self.block = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        self.head = nn.Linear(32, 100)
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
