#!/bin/sh
# traces/regenerate.sh: regenerate the gradient traces shipped in traces/data/ from real
# training on Fashion-MNIST (Debian packages python3-torch and dataset-fashion-mnist).
# About five minutes on two idle CPU cores (much longer on a loaded machine).
# Run from anywhere:  sh traces/regenerate.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
"$py" "$here/capture/train_fashion_mnist.py" --model resnet20 --seed 1 --steps 800 --batch 64 \
    --capture 0,10,50,200,500,799 --out "$here/data/fmnist_resnet20"
"$py" "$here/capture/train_fashion_mnist.py" --model lenet --seed 1 --steps 1500 --batch 64 \
    --capture 0,10,50,200,700,1499 --out "$here/data/fmnist_lenet"
"$py" "$here/capture/train_fashion_mnist.py" --model lenet300 --seed 1 --steps 1500 --batch 64 \
    --capture 0,10,50,200,700,1499 --out "$here/data/fmnist_lenet300"
du -sh "$here/data"
