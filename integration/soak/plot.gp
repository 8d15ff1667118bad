# The soak report's plot (./dev.sh soak): gnuplot -e "dir='OUT'" plot.gp writes OUT/report.png
# from the driver's OUT/samples.tsv (each process every few seconds) and OUT/minutes.tsv (a row
# per report interval; columns as in its header line), a dashed line at each kill (OUT/kills.gp).
set terminal pngcairo size 1400,1000 font ",10" noenhanced
set output dir."/report.png"
set datafile separator "\t"
set key top left
set grid
set xlabel "minutes"
set xrange [0:*]
set autoscale xfixmax  # every panel ends where the run did
set yrange [0:*]
load dir."/kills.gp"
set multiplot layout 3,2 title "Soak: ".dir
samples = dir."/samples.tsv"
minutes = dir."/minutes.tsv"

set title "RSS (MiB; a drop is a restart)"
plot samples using ($1/60):2 with lines title "sales", \
     samples using ($1/60):4 with lines title "fulfilment"

set title "open file descriptors"
plot samples using ($1/60):3 with lines title "sales", \
     samples using ($1/60):5 with lines title "fulfilment"

set title "PostgreSQL (MiB)"
plot minutes using 1:8 with linespoints title "WAL", \
     minutes using 1:9 with linespoints title "wh_* tables"

set title "backlog (rows owed, both services)"
plot minutes using 1:10 with linespoints title "outbox", \
     minutes using 1:11 with linespoints title "inbox", \
     minutes using 1:12 with linespoints title "perspective events"

set title "end-to-end latency of the interval's orders (ms, log scale)"
set logscale y
set yrange [1:*]
plot minutes using 1:14 with linespoints title "p50", \
     minutes using 1:15 with linespoints title "p99"
unset logscale y
set yrange [0:*]

set title "orders"
plot minutes using 1:2 with linespoints title "sent", \
     minutes using 1:3 with linespoints title "done"

unset multiplot
