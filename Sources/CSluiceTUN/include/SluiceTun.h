#ifndef SLUICE_TUN_H
#define SLUICE_TUN_H
/*
 * ioctl is variadic, so Swift cannot call it: this attaches to an existing TUN device
 * (created with `ip tuntap add dev NAME mode tun`) as IFF_TUN | IFF_NO_PI. No logic.
 * Returns the file descriptor, or -errno.
 */
int sluice_tun_attach(const char *name);
#endif
