// Linux system calls HTTPCore needs that Swift's Glibc module does not export: epoll, eventfd and sendfile
// come straight from their headers; the GNU extensions (accept4, memfd_create, sched_getaffinity,
// pthread_setname_np) are wrapped in CLinux.c, which is compiled with _GNU_SOURCE.
#ifndef CLINUX_H
#define CLINUX_H

#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/types.h>

static const uint32_t CLINUX_EPOLLIN = EPOLLIN;
static const uint32_t CLINUX_EPOLLOUT = EPOLLOUT;
static const uint32_t CLINUX_EPOLLERR = EPOLLERR;
static const uint32_t CLINUX_EPOLLHUP = EPOLLHUP;
static const uint32_t CLINUX_EPOLLEXCLUSIVE = EPOLLEXCLUSIVE;
static const int CLINUX_EPOLL_CLOEXEC = EPOLL_CLOEXEC;
static const int CLINUX_EFD_CLOEXEC = EFD_CLOEXEC;
static const int CLINUX_EFD_NONBLOCK = EFD_NONBLOCK;

/// accept4(2).
int clinux_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
/// memfd_create(2) with MFD_CLOEXEC.
int clinux_memfd_create(const char *name);
/// The number of CPUs this process may run on (sched_getaffinity(2)); 0 when unknown.
int clinux_available_cpus(void);
/// Names the calling thread (pthread_setname_np, at most 15 bytes).
int clinux_set_thread_name(const char *name);
/// Caps glibc malloc's arenas (mallopt(M_ARENA_MAX)); 1 on success.
int clinux_limit_malloc_arenas(int count);
/// Serves glibc malloc requests of `bytes` or more with their own mappings (mallopt(M_MMAP_THRESHOLD), which also
/// stops glibc raising the threshold as big blocks are freed); 1 on success.
int clinux_malloc_mmap_threshold(int bytes);
/// Returns glibc malloc's free memory to the system (malloc_trim(0)); 1 when some was released.
int clinux_malloc_trim(void);

#endif
