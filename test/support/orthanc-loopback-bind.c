/* LD_PRELOAD shim for the Orthanc tests: Debian's Orthanc 1.10 binds its HTTP and DICOM
 * ports to every interface and has no bind-address option. This rewrites a bind() to the
 * wildcard address (0.0.0.0 or ::) into the loopback address, so the test server is never
 * reachable from outside the machine. Built at test time by test/support/orthanc.ts. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
int bind(int fd, const struct sockaddr *addr, socklen_t len) {
  static int (*real)(int, const struct sockaddr *, socklen_t);
  if (!real) real = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
  if (addr && addr->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
    struct sockaddr_in copy;
    memcpy(&copy, addr, sizeof copy);
    if (copy.sin_addr.s_addr == htonl(INADDR_ANY)) copy.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return real(fd, (const struct sockaddr *)&copy, sizeof copy);
  }
  if (addr && addr->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
    struct sockaddr_in6 copy;
    memcpy(&copy, addr, sizeof copy);
    if (!memcmp(&copy.sin6_addr, &in6addr_any, sizeof(struct in6_addr))) copy.sin6_addr = in6addr_loopback;
    return real(fd, (const struct sockaddr *)&copy, sizeof copy);
  }
  return real(fd, addr, len);
}
