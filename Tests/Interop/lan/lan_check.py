#!/usr/bin/env python3
"""python-zeroconf (PyPI) as the foreign DNS-SD peer of Sluice's LAN tests.

    lan_check.py advertise NAME --port P [--txt k=v ...] [--seconds N]
        registers NAME._sluice._tcp.local. (zeroconf probes and announces), prints "registered",
        keeps it for N seconds, then unregisters (goodbye).
    lan_check.py browse [--seconds N] [--until-removed NAME] [--until-found NAME]
        browses _sluice._tcp.local.; prints one JSON object: every instance seen (port, TXT,
        addresses) and those removed. With --until-found it prints "found NAME" when NAME
        resolves (then keeps browsing); with --until-removed it ends as soon as NAME is
        removed (a goodbye), else after N seconds.

Loopback only by default (127.0.0.1); --interface ADDRESS uses a test namespace's veth address.
"""
import argparse, json, socket, sys, threading, time
from zeroconf import IPVersion, ServiceBrowser, ServiceInfo, ServiceStateChange, Zeroconf

TYPE = "_sluice._tcp.local."


def advertise(args):
    zc = Zeroconf(interfaces=[args.interface], ip_version=IPVersion.V4Only)
    txt = dict(kv.split("=", 1) for kv in args.txt)
    info = ServiceInfo(TYPE, f"{args.name}.{TYPE}", addresses=[socket.inet_aton(args.interface)], port=args.port,
                       properties=txt, server=f"{args.name.lower().replace(' ', '-')}-zc.local.")
    zc.register_service(info)
    print("registered", flush=True)
    time.sleep(args.seconds)
    zc.unregister_service(info)
    zc.close()


def browse(args):
    zc = Zeroconf(interfaces=[args.interface], ip_version=IPVersion.V4Only)
    seen, removed, done = {}, [], threading.Event()

    def changed(zeroconf, service_type, name, state_change):
        label = name[: -len("." + TYPE)] if name.endswith("." + TYPE) else name
        if state_change is ServiceStateChange.Removed:
            removed.append(label)
            if label == args.until_removed:
                done.set()
            return
        info = zeroconf.get_service_info(service_type, name, timeout=3000)
        if info is None:
            return
        seen[label] = {"port": info.port, "server": info.server,
                       "addresses": [socket.inet_ntoa(a) for a in info.addresses],
                       "txt": {k.decode(): (v or b"").decode() for k, v in info.properties.items()}}
        if label == args.until_found:
            print(f"found {label}", flush=True)

    ServiceBrowser(zc, TYPE, handlers=[changed])
    done.wait(args.seconds)
    zc.close()
    print(json.dumps({"seen": seen, "removed": removed}, sort_keys=True), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["advertise", "browse"])
    p.add_argument("name", nargs="?")
    p.add_argument("--port", type=int, default=8443)
    p.add_argument("--txt", action="append", default=[])
    p.add_argument("--seconds", type=float, default=10)
    p.add_argument("--until-removed")
    p.add_argument("--until-found")
    p.add_argument("--interface", default="127.0.0.1")
    args = p.parse_args()
    (advertise if args.mode == "advertise" else browse)(args)


if __name__ == "__main__":
    sys.exit(main())
