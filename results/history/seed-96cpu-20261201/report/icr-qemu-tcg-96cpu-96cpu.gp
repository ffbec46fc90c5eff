# ipibench plot icr-qemu-tcg-96cpu-96cpu: data in icr-qemu-tcg-96cpu-96cpu.dat.
# Re-create icr-qemu-tcg-96cpu-96cpu.png and icr-qemu-tcg-96cpu-96cpu.svg with: gnuplot icr-qemu-tcg-96cpu-96cpu.gp
if (!exists("outdir")) outdir = ''
set terminal pngcairo size 800,450 noenhanced font ',10'
set output outdir.'icr-qemu-tcg-96cpu-96cpu.png'
set datafile separator whitespace
set grid ytics lc rgb '#dddddd'
set title 'ICR writes per operation, qemu-tcg-96cpu, 96 CPUs'
set ylabel 'ICR writes per operation'
set datafile missing '-'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:*]
set key top right
set xtics nomirror
plot for [c=2:4] 'icr-qemu-tcg-96cpu-96cpu.dat' using c:xtic(1) title columnheader(c)
set terminal svg size 800,450 dynamic noenhanced font 'sans,10' background rgb 'white'
set output outdir.'icr-qemu-tcg-96cpu-96cpu.svg'
replot
unset output
