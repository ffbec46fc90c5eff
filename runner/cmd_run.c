/* ipibench run: placeholder until the runner issue lands (see issue 5). */
#include <stdio.h>

#include "runner/runner.h"

int cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "ipibench run: not implemented yet\n");
	return 2;
}

int cmd_host(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "ipibench host: not implemented yet\n");
	return 2;
}
