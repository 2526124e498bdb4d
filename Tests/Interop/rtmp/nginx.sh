#!/usr/bin/env bash
# Starts nginx (Debian's, with libnginx-mod-rtmp) in the foreground on loopback for the
# network-source tests: an RTMP server at 127.0.0.1:RTMP_PORT (application `live`, what
# ffmpeg publishes is played to any client) and, if HTTP_PORT is set, the files under
# DIR/www over HTTP (HLS playlists and segments). Usage: nginx.sh DIR RTMP_PORT [HTTP_PORT]
set -euo pipefail
dir=$1; rtmp=$2; http=${3:-}
mkdir -p "$dir/www" "$dir/tmp"
{
  echo "load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;"
  echo "daemon off; master_process off; pid $dir/nginx.pid; error_log $dir/error.log info;"
  echo "events { worker_connections 256; }"
  echo "rtmp { server { listen 127.0.0.1:$rtmp; application live { live on; } } }"
  if [ -n "$http" ]; then
    echo "http { access_log $dir/access.log; client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;"
    echo "  uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;"
    echo "  types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; video/mp4 mp4; }"
    echo "  server { listen 127.0.0.1:$http; root $dir/www; } }"
  fi
} > "$dir/nginx.conf"
exec nginx -c "$dir/nginx.conf" -e "$dir/error.log"
