# plots/train/accuracy_vs_workers.gp: final test accuracy against the number of workers,
# fp32 against each compressor (the project's version of TernGrad Fig. 3).
# Input: summary.dat written by plots/train/run_sweep.sh.
# Usage: gnuplot -e "data='OUT/summary.dat'; out='accuracy_vs_workers.svg'" \
#                plots/train/accuracy_vs_workers.gp
if (!exists("data")) data = 'summary.dat'
if (!exists("out")) out = 'accuracy_vs_workers.svg'
# term: 'svg' (default) or 'png' (the copies the README and docs/train.md show).
if (!exists("term")) term = 'svg'
if (term eq 'png') {
    set terminal pngcairo size 800,500 font 'Sans,10'
} else {
    set terminal svg size 800,500 dynamic font 'Sans,12'
}
set output out
set title 'gcsim train: Fashion-MNIST test accuracy vs. workers (fixed global mini-batch)'
set xlabel 'workers N (global mini-batch split N ways)'
set ylabel 'test accuracy after the last epoch'
set logscale x 2
set xtics (1, 2, 4, 8, 16, 32, 64)
set xrange [0.8:20]
set key outside right top
set grid
plot for [i=0:*] data index i using 1:2 with linespoints pointsize 1 title columnheader(2)
