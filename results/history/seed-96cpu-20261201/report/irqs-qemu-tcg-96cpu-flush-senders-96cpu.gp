# ipibench plot irqs-qemu-tcg-96cpu-flush-senders-96cpu: data in irqs-qemu-tcg-96cpu-flush-senders-96cpu.dat.
# Re-create irqs-qemu-tcg-96cpu-flush-senders-96cpu.png and irqs-qemu-tcg-96cpu-flush-senders-96cpu.svg with: gnuplot irqs-qemu-tcg-96cpu-flush-senders-96cpu.gp
if (!exists("outdir")) outdir = ''
set terminal pngcairo size 900,300 noenhanced font ',10'
set output outdir.'irqs-qemu-tcg-96cpu-flush-senders-96cpu.png'
set datafile separator whitespace
set grid ytics lc rgb '#dddddd'
set ytics ('physical' 0, 'cluster' 1, 'mixed' 2)
set title 'flush-senders: interrupts per CPU, qemu-tcg-96cpu, 96 CPUs'
set xlabel 'CPU'
set cblabel 'interrupts per run'
set palette defined (0 '#ffffff', 1 '#fdd49e', 2 '#ef6548', 3 '#7f0000')
set cbrange [0:*]
set xrange [-0.5:111.5]
set yrange [-0.5:2.5]
set tics out
unset grid
plot 'irqs-qemu-tcg-96cpu-flush-senders-96cpu.dat' matrix with image notitle
set terminal svg size 900,300 dynamic noenhanced font 'sans,10' background rgb 'white'
set output outdir.'irqs-qemu-tcg-96cpu-flush-senders-96cpu.svg'
replot
unset output
