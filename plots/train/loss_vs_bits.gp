# plots/train/loss_vs_bits.gp: training loss against bits sent per worker, one curve per
# compressor at one worker count (the project's version of ECQ-SGD Fig. 5, first column).
# Input: OUT/runs/<label>-w<N>.csv written by plots/train/run_sweep.sh (columns epoch,
# iteration, train_loss, test_loss, test_accuracy, bits_per_worker).
# Usage: gnuplot -e "dir='OUT/runs'; workers=8; out='loss_vs_bits.svg'" \
#                plots/train/loss_vs_bits.gp
# Optional: labels='fp32 terngrad ...' (default: the seven of the sweep).
if (!exists("dir")) dir = 'runs'
if (!exists("workers")) workers = 8
if (!exists("labels")) labels = 'fp32 terngrad qsgd dgc ecq signsgd orq'
if (!exists("out")) out = 'loss_vs_bits.svg'
# term: 'svg' (default) or 'png' (the copies the README and docs/train.md show).
if (!exists("term")) term = 'svg'
if (term eq 'png') {
    set terminal pngcairo size 800,500 font 'Sans,10'
} else {
    set terminal svg size 800,500 dynamic font 'Sans,12'
}
set output out
set datafile separator ','
set title sprintf('gcsim train: training loss vs. bits sent per worker (N = %d workers)', workers)
set xlabel 'bits sent per worker (cumulative, real payload lengths)'
set ylabel 'training loss (mean since the previous point, log scale)'
set logscale x
# log y too: a diverging run (signsgd without error feedback) would flatten every other curve
set logscale y
set format x '%.0e'
set key outside right top
set grid
plot for [l in labels] sprintf('%s/%s-w%d.csv', dir, l, workers) every ::1 \
     using 6:3 with lines linewidth 2 title l
