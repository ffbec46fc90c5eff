# analysis/: statistics, reports, plots, history (`ipibench report|history`).
analysis_SRCS := $(wildcard analysis/*.c)
analysis_TESTS := $(wildcard analysis/tests/test_*.c)
analysis_LIBS := -ljansson -lgsl -lgslcblas
