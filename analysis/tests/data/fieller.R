# SPDX-License-Identifier: GPL-3.0-or-later
# Fieller's 95% interval of a ratio of means, found independently of
# analysis/ministat.c: by inverting the t test numerically (uniroot), with
# R's own t quantile and Welch-Satterthwaite df (t.test).  The interval is
# the set of ratios r whose hypothesis mean(x) - r mean(b) = 0 the test
# does not reject.  Prints the bounds as % change, as ipibench does.
#   Rscript analysis/tests/data/fieller.R
invert <- function(stat2, q, r0, scale) {
  f <- function(r) stat2(r) - q^2
  lo <- uniroot(f, c(r0 - scale, r0), tol = 1e-15)$root
  hi <- uniroot(f, c(r0, r0 + scale), tol = 1e-15)$root
  c(lo, hi)
}
two_sample <- function(x, b, var.equal, level = 0.95) {
  nx <- length(x); nb <- length(b)
  if (var.equal) {
    sp2 <- ((nx - 1) * var(x) + (nb - 1) * var(b)) / (nx + nb - 2)
    vx <- sp2 / nx; vb <- sp2 / nb; df <- nx + nb - 2
  } else {
    vx <- var(x) / nx; vb <- var(b) / nb
    df <- unname(t.test(x, b, var.equal = FALSE)$parameter)
  }
  q <- qt(1 - (1 - level) / 2, df)
  stat2 <- function(r) (mean(x) - r * mean(b))^2 / (vx + r^2 * vb)
  r <- invert(stat2, q, mean(x) / mean(b), mean(x) / mean(b))
  c(df = df, pct = (mean(x) / mean(b) - 1) * 100, lo = (r[1] - 1) * 100,
    hi = (r[2] - 1) * 100)
}
paired <- function(a, b, level = 0.95) {
  n <- length(a)
  q <- qt(1 - (1 - level) / 2, n - 1)
  stat2 <- function(r) (mean(b) - r * mean(a))^2 / (var(b - r * a) / n)
  r <- invert(stat2, q, mean(b) / mean(a), mean(b) / mean(a))
  c(df = n - 1, pct = (mean(b) / mean(a) - 1) * 100, lo = (r[1] - 1) * 100,
    hi = (r[2] - 1) * 100)
}
show <- function(name, v) cat(sprintf("%-34s df %.6f  %+.10g%%  [%+.10g%%, %+.10g%%]\n",
                                      name, v["df"], v["pct"], v["lo"], v["hi"]))
base <- c(100, 104, 98, 103, 101, 99)
x <- c(121, 109, 127, 114, 118, 131, 112)
show("worked example, Welch", two_sample(x, base, FALSE))
show("worked example, Student", two_sample(x, base, TRUE))
a <- c(50.1, 52.3, 49.8, 51.0, 50.6, 53.2)
b <- c(45.2, 47.9, 44.1, 46.3, 45.0, 48.8)
show("worked example, paired", paired(a, b))
d <- if (dir.exists("analysis/tests/data/ministat")) "analysis/tests/data/ministat" else "."
rd <- function(f) scan(file.path(d, f), comment.char = "#", quiet = TRUE)
mixed <- rd("seed512-mixed.txt"); phys <- rd("seed512-physical.txt")
show("seed 512-CPU physical vs mixed, Welch", two_sample(phys, mixed, FALSE))
show("seed 512-CPU physical vs mixed, Student", two_sample(phys, mixed, TRUE))
