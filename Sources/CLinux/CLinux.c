#define _GNU_SOURCE
#include "CLinux.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

int clinux_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags) {
    return accept4(fd, address, length, flags);
}

int clinux_memfd_create(const char *name) { return memfd_create(name, MFD_CLOEXEC); }

int clinux_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
    return CPU_COUNT(&set);
}

int clinux_set_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }

int clinux_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

int clinux_malloc_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

int clinux_malloc_trim(void) { return malloc_trim(0); }
