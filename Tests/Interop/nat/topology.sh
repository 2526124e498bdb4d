#!/usr/bin/env bash
# A viewer behind a home NAT and a server behind a cloud NAT, in network namespaces:
#
#   natv$ID  viewer    192.168.1.2 ── 192.168.1.1  nath$ID  home NAT   100.64.0.2 ─┐ "internet"
#   nats$ID  server    10.0.2.2    ── 10.0.2.1     natc$ID  cloud NAT  100.64.0.1 ─┘ 100.64.0.0/24
#
# The home NAT masquerades the viewer. The cloud NAT masquerades the server out and forwards
# its public address's TCP port HTTP_PORT, plus UDP_RANGE and TCP_RANGE (MIN:MAX) if given, to
# the server.
# The home NAT has no route to 10.0.2.0/24 and the cloud NAT none to 192.168.1.0/24: as on
# the internet, private addresses are unreachable from the other side.
#
#   topology.sh up ID HTTP_PORT [UDP_RANGE [TCP_RANGE]]     topology.sh down ID
set -euo pipefail
cmd=$1 id=$2
if [ "$cmd" = down ]; then
  for n in v h c s; do ip netns del "nat$n$id" 2>/dev/null || true; done
  exit 0
fi
http=$3 udp=${4:-} tcp=${5:-}
for n in v h c s; do ip netns add "nat$n$id"; ip -n "nat$n$id" link set lo up; done
ip link add vh0 netns "natv$id" type veth peer name vh1 netns "nath$id"
ip link add hc0 netns "nath$id" type veth peer name hc1 netns "natc$id"
ip link add cs0 netns "natc$id" type veth peer name cs1 netns "nats$id"
ip -n "natv$id" addr add 192.168.1.2/24 dev vh0
ip -n "nath$id" addr add 192.168.1.1/24 dev vh1
ip -n "nath$id" addr add 100.64.0.2/24 dev hc0
ip -n "natc$id" addr add 100.64.0.1/24 dev hc1
ip -n "natc$id" addr add 10.0.2.1/24 dev cs0
ip -n "nats$id" addr add 10.0.2.2/24 dev cs1
for pair in natv:vh0 nath:vh1 nath:hc0 natc:hc1 natc:cs0 nats:cs1; do ip -n "${pair%%:*}$id" link set "${pair##*:}" up; done
ip -n "natv$id" route add default via 192.168.1.1
ip -n "nats$id" route add default via 10.0.2.1
for n in h c; do ip netns exec "nat$n$id" sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'; done
ip netns exec "nath$id" iptables -t nat -A POSTROUTING -s 192.168.1.0/24 -o hc0 -j MASQUERADE
ip netns exec "natc$id" iptables -t nat -A POSTROUTING -s 10.0.2.0/24 -o hc1 -j MASQUERADE
ip netns exec "natc$id" iptables -t nat -A PREROUTING -i hc1 -p tcp --dport "$http" -j DNAT --to-destination 10.0.2.2
if [ -n "$udp" ]; then
  ip netns exec "natc$id" iptables -t nat -A PREROUTING -i hc1 -p udp --dport "$udp" -j DNAT --to-destination 10.0.2.2
fi
if [ -n "$tcp" ]; then
  ip netns exec "natc$id" iptables -t nat -A PREROUTING -i hc1 -p tcp --dport "$tcp" -j DNAT --to-destination 10.0.2.2
fi
