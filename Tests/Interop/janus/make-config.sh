#!/usr/bin/env bash
# Writes a Janus 1.1 configuration for the tests into DIR: the VideoRoom plugin, the HTTP
# (HTTP_PORT, on 127.0.0.1) and WebSocket (WS_PORT) transports, ICE on INTERFACE only, and the
# rooms the tests use (VideoRoom and AudioBridge). Usage: make-config.sh DIR HTTP_PORT WS_PORT [INTERFACE]
# Start it with: janus -F DIR -C DIR/janus.jcfg
# Janus never gathers ICE candidates on a loopback interface (ice.c skips IFF_LOOPBACK), so
# the tests give it one end of a veth pair inside their own namespace (nothing outside it is
# reachable): ip link add sfu0 type veth peer name sfu1; ip addr add 10.55.0.1/24 dev sfu0;
# ip link set sfu1 up; ip link set sfu0 up.
set -euo pipefail
dir=$1; http=$2; ws=$3; interface=${4:-sfu0}
lib=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)/janus
mkdir -p "$dir"
cat > "$dir/janus.jcfg" <<CFG
general: {
	configs_folder = "$dir"
	plugins_folder = "$lib/plugins"
	transports_folder = "$lib/transports"
	events_folder = "$lib/events"
	loggers_folder = "$lib/loggers"
	debug_level = 4
	session_timeout = 30
	server_name = "sluice-test-janus"
}
certificates: {
}
media: {
	rtp_port_range = "20000-40000"
}
nat: {
	ice_enforce_list = "$interface"
}
plugins: {
	disable = "libjanus_duktape.so,libjanus_lua.so,libjanus_nosip.so,libjanus_recordplay.so,libjanus_sip.so,libjanus_streaming.so,libjanus_textroom.so,libjanus_videocall.so,libjanus_voicemail.so"
}
transports: {
	disable = "libjanus_mqtt.so,libjanus_nanomsg.so,libjanus_pfunix.so,libjanus_rabbitmq.so"
}
events: {
}
loggers: {
	disable = "libjanus_jsonlog.so"
}
CFG
cat > "$dir/janus.transport.http.jcfg" <<CFG
general: {
	json = "indented"
	base_path = "/janus"
	http = true
	port = $http
	ip = "127.0.0.1"
	https = false
}
admin: {
	admin_http = false
}
cors: {
}
CFG
cat > "$dir/janus.transport.websockets.jcfg" <<CFG
general: {
	json = "indented"
	ws = true
	ws_port = $ws
	ws_ip = "127.0.0.1"
	wss = false
}
admin: {
	admin_ws = false
}
CFG
# Room 1234: open. Room 5678: a pin and a secret. Both VP8 and H.264, Opus, up to 6 publishers.
cat > "$dir/janus.plugin.videoroom.jcfg" <<CFG
general: {
}
room-1234: {
	description = "Sluice test room"
	publishers = 6
	bitrate = 2000000
	fir_freq = 2
	videocodec = "vp8,h264"
	audiocodec = "opus"
	notify_joining = true
}
room-5678: {
	description = "Sluice test room with a pin"
	pin = "letmein"
	secret = "s3cret"
	publishers = 3
	videocodec = "vp8,h264"
	audiocodec = "opus"
}
CFG
# Room 2468: the flood room (Tests/Interop/janus/flood_publishers.py fills it), at most 34 publishers.
cat >> "$dir/janus.plugin.videoroom.jcfg" <<CFG
room-2468: {
	description = "Sluice flood room"
	publishers = 34
	videocodec = "vp8"
	audiocodec = "opus"
}
CFG
# AudioBridge room 1234: open, mixed at 16 kHz (Janus's default; the stamps' DTMF tones are
# under 1.7 kHz). Room 5678: a pin. Every participant hears the mix of the others.
cat > "$dir/janus.plugin.audiobridge.jcfg" <<CFG
general: {
}
room-1234: {
	description = "Sluice test AudioBridge"
	sampling_rate = 16000
	record = false
}
room-5678: {
	description = "Sluice test AudioBridge with a pin"
	pin = "letmein"
	sampling_rate = 16000
	record = false
}
CFG
