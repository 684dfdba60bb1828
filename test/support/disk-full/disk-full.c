/*
 * A disk that fills up, for tests of the embedded database (PGlite writes its files through
 * Node's fs, that is through these libc calls). Loaded with LD_PRELOAD into a service process:
 * while the file named by ERS_TEST_DISK_FULL_FLAG exists, every write to a file under a
 * "pgdata" directory fails with ENOSPC, as on a full disk; everything else is written as usual.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static int full(int fd) {
  const char *flag = getenv("ERS_TEST_DISK_FULL_FLAG");
  if (flag == NULL || access(flag, F_OK) != 0) return 0;
  char link[64], target[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return 0;
  target[n] = 0;
  return strstr(target, "/pgdata/") != NULL;
}

#define REFUSE_IF_FULL(fd) \
  if (full(fd)) {          \
    errno = ENOSPC;        \
    return -1;             \
  }

ssize_t write(int fd, const void *buf, size_t count) {
  static ssize_t (*real)(int, const void *, size_t);
  if (!real) real = dlsym(RTLD_NEXT, "write");
  REFUSE_IF_FULL(fd);
  return real(fd, buf, count);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
  static ssize_t (*real)(int, const void *, size_t, off_t);
  if (!real) real = dlsym(RTLD_NEXT, "pwrite");
  REFUSE_IF_FULL(fd);
  return real(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
  static ssize_t (*real)(int, const void *, size_t, off_t);
  if (!real) real = dlsym(RTLD_NEXT, "pwrite64");
  REFUSE_IF_FULL(fd);
  return real(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
  static ssize_t (*real)(int, const struct iovec *, int);
  if (!real) real = dlsym(RTLD_NEXT, "writev");
  REFUSE_IF_FULL(fd);
  return real(fd, iov, iovcnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
  static ssize_t (*real)(int, const struct iovec *, int, off_t);
  if (!real) real = dlsym(RTLD_NEXT, "pwritev");
  REFUSE_IF_FULL(fd);
  return real(fd, iov, iovcnt, offset);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int iovcnt, off_t offset) {
  static ssize_t (*real)(int, const struct iovec *, int, off_t);
  if (!real) real = dlsym(RTLD_NEXT, "pwritev64");
  REFUSE_IF_FULL(fd);
  return real(fd, iov, iovcnt, offset);
}
