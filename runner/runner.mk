# runner/: the ipibench CLI, configs, host backends, results store; the agent.
runner_SRCS := $(filter-out runner/main.c,$(wildcard runner/*.c runner/backends/*.c))
runner_TESTS := $(wildcard runner/tests/test_*.c)
runner_LIBS := -ljansson -linih

# The dom0 agent (static; runs inside the Xen host).
agent_SRCS := runner/console.c runner/wlspec.c $(wildcard runner/agent/*.c runner/agent/workloads/*.c)
agent_LIBS := -Wl,--start-group -lxenctrl -lxencall -lxenforeignmemory -lxendevicemodel \
	-lxenevtchn -lxengnttab -lxentoollog -lxentoolcore -ljansson -Wl,--end-group -lpthread
gnu11_SRCS += $(filter runner/agent/%,$(agent_SRCS))
