# The "algorithm matters" chart: median kernel ms against the blur radius,
# one line per mode and device, one panel per frame size.
# Usage: gnuplot -e "files='a.dat b.dat'; sizes='1280x720 3840x2160'; modes=3; out='x.png'" kernel-vs-radius.gp
# Each .dat file holds one block per line to draw (blocks apart by two blank
# lines), each block a title line, then "radius  ms" rows (run.sh writes
# them); blocks go device by device, `modes` blocks each: the colour says
# the mode, the point (and dash pattern) the device.
n = words(files)
set terminal png size 900 * n, 680 font ",11"
set output out
set multiplot layout 1, n
set logscale x 2
set logscale y
set grid xtics ytics mytics
set xlabel "blur radius r (window (2r+1)^2)"
set ylabel "median kernel time per frame, ms"
set key below
points = "7 5 9 11 13 15"   # filled circle, square, triangles...: one per device
do for [p = 1:n] {
  stats word(files, p) using 1 nooutput
  set title word(sizes, p) . " RGBA"
  plot for [i = 0:STATS_blocks - 1] word(files, p) index i using 1:2 \
       with linespoints linewidth 2 linecolor i % modes + 1 \
       dashtype i / modes + 1 pointtype int(word(points, i / modes + 1)) \
       title columnheader(1)
}
unset multiplot
