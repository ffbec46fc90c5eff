/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * tlbstorm: the guest IPI workload of the HVM trace (images/guest-initramfs.sh).
 *
 *   tlbstorm [-t THREADS] [-s SECONDS] [-p PAGES]
 *
 * THREADS threads (default 2, one per vCPU) share one address space; each
 * keeps touching a shared buffer while the first thread flips it between
 * PROT_READ|PROT_WRITE and PROT_READ with mprotect() and drops its pages
 * with madvise(MADV_DONTNEED) (refilled by the next round's writes; a
 * reader then sees fresh zero pages, never a fault).  Each change of a mapping that another
 * vCPU may hold in its TLB makes Linux send a TLB-shootdown IPI to the
 * vCPUs that run the other threads: in a Xen guest that is a guest IPI
 * (an event channel or an x2APIC ICR write, whichever the guest kernel
 * uses) and, on the target, an injected interrupt.  Prints the number of
 * rounds on exit.  Static (busybox initramfs, no libc in the guest).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;
static volatile char *buf;
static size_t len;

static void *toucher(void *arg)
{
	unsigned long n = 0;

	(void)arg;
	while (!atomic_load(&stop)) {
		n += buf[(n * 4096) % len];  /* a read: legal under both protections */
		n++;
	}
	return NULL;
}

static int parse(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || *end || end == s || *v < lo || *v > hi ? -1 : 0;
}

int main(int argc, char **argv)
{
	long threads = 2, secs = 10, pages = 16, v;
	int c;

	while ((c = getopt(argc, argv, "t:s:p:h")) != -1) {
		switch (c) {
		case 't': if (parse(optarg, 1, 64, &v)) goto usage; threads = v; break;
		case 's': if (parse(optarg, 1, 86400, &v)) goto usage; secs = v; break;
		case 'p': if (parse(optarg, 1, 65536, &v)) goto usage; pages = v; break;
		case 'h':
			printf("usage: tlbstorm [-t THREADS] [-s SECONDS] [-p PAGES]\n"
			       "  mprotect/munmap a shared buffer while THREADS-1 threads read it:\n"
			       "  TLB-shootdown IPIs between the vCPUs (default -t 2 -s 10 -p 16)\n");
			return 0;
		default:
		usage:
			fprintf(stderr, "usage: tlbstorm [-t THREADS 1-64] [-s SECONDS] [-p PAGES]\n");
			return 2;
		}
	}
	if (optind != argc)
		goto usage;
	len = (size_t)pages * 4096;
	char *b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED) {
		perror("tlbstorm: mmap");
		return 1;
	}
	memset(b, 1, len);
	buf = b;
	pthread_t t[64];
	for (long i = 1; i < threads; i++)
		if (pthread_create(&t[i], NULL, toucher, NULL)) {
			fprintf(stderr, "tlbstorm: pthread_create failed\n");
			return 1;
		}
	struct timespec now, end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	unsigned long rounds = 0;
	do {
		if (mprotect(b, len, (rounds & 1) ? PROT_READ | PROT_WRITE : PROT_READ)) {
			perror("tlbstorm: mprotect");
			return 1;
		}
		if (rounds & 1) {
			if (madvise(b, len, MADV_DONTNEED)) {
				perror("tlbstorm: madvise");
				return 1;
			}
			memset(b, 1, len);
		}
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec < end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec < end.tv_nsec));
	atomic_store(&stop, 1);
	for (long i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("tlbstorm: %lu rounds in %ld s, %ld threads\n", rounds, secs, threads);
	return 0;
}
