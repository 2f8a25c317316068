# plots/common.gp: terminal, colours and the helpers every figure script shares.
# Expects: out (file), term ("png" or "svg").
if (term eq "png") {
    set terminal pngcairo size 1500,520 enhanced font "DejaVu Sans,11" linewidth 1.5
} else {
    set terminal svg size 1500,520 enhanced font "DejaVu Sans,11" linewidth 1.5
}
set output out
set grid xtics ytics lc rgb "#dddddd"
set border lc rgb "#444444"
set key top left box opaque samplen 3
# baseline blue, compressed red, second compressor green; the DES as large open markers
# without a line, so that they stay visible where they sit on the analytic line
set style line 1 lc rgb "#1f77b4" lw 2 pt 7 ps 0.9
set style line 2 lc rgb "#d62728" lw 2 pt 9 ps 1.0
set style line 3 lc rgb "#2ca02c" lw 2 pt 5 ps 0.9
set style line 11 lc rgb "#1f77b4" lw 1.5 pt 6 ps 1.8
set style line 12 lc rgb "#d62728" lw 1.5 pt 8 ps 1.9
set style line 13 lc rgb "#2ca02c" lw 1.5 pt 4 ps 1.8
set style line 4 lc rgb "#ff7f0e" lw 2 pt 11 ps 1.0
set style line 14 lc rgb "#ff7f0e" lw 1.5 pt 10 ps 1.9
# a paper's reported point: black, large, filled diamond
set style line 7 lc rgb "#000000" pt 13 ps 2.4
set style line 5 lc rgb "#6baed6" lw 1.2 dt 3 pt 1 ps 0.8
set style line 6 lc rgb "#fc9272" lw 1.2 dt 3 pt 2 ps 0.8
set style line 9 lc rgb "#888888" lw 1 dt 3
have(f) = system("test -s '" . f . "' && echo 1 || echo 0") + 0
# curve(file, style, title): one plot clause, or "" when the file is missing or empty
curve(f, ls, t) = have(f) ? sprintf("'%s' using 1:2 with linespoints ls %d title '%s'", f, ls, t) : ""
join(a, b) = a eq "" ? b : (b eq "" ? a : a . ", " . b)
# des_curve(file, style, title): a DES series as open markers only (see the styles above)
des_curve(f, ls, t) = have(f) ? sprintf("'%s' using 1:2 with points ls %d title '%s'", f, ls, t) : ""
# paper_point(x, y, title): one reported point of a paper, drawn at (x, y)
paper_point(x, y, t) = sprintf("'+' every ::0::0 using (%.17g):(%.17g) with points ls 7 title '%s'", x, y, t)
