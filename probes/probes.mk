# probes/: trace ABI, trace collection, xentrace reader (`ipibench trace`).
probes_SRCS := $(wildcard probes/*.c)
probes_TESTS := $(wildcard probes/tests/test_*.c)
probes_LIBS := -ljansson
