#!/usr/bin/env bash
# Installs the runtime component as the Debian package lays it out (cpack installs it
# under /usr; here DESTDIR is a temporary root), then checks that what is installed
# works by itself: every bundled plugin is there and agentd finds them beside itself,
# not in the build tree; the shipped config is valid; the systemd unit starts agentd on
# that config and lets it write its data dir, reads the optional environment file and
# gives agentd's shutdown time to finish; the config is not world-readable (it may
# hold keys); the maintainer scripts are valid shell (maintainer_scripts.sh runs them);
# and the installed agentd serves a conversation. Usage: run.sh <build-dir>
set -euo pipefail
. "$(dirname "$0")/../shell/agentd_port.sh"
build=$1
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "packaging: $*" >&2; exit 1; }

DESTDIR="$work/root" cmake --install "$build" --prefix /usr --component runtime >/dev/null
root=$work/root
agentd=$root/usr/bin/agentd
config=$root/etc/agentrt/agentrt.json
unit=$root/usr/lib/systemd/system/agentd.service
[ -x "$agentd" ] || fail "no /usr/bin/agentd"
[ -x "$root/usr/bin/agentrt-plugin-check" ] || fail "no /usr/bin/agentrt-plugin-check"
for plugin in anthropic auth-token echo mcp memory-sqlite ollama openai; do
  [ -f "$root/usr/lib/agentrt/plugins/agentrt-$plugin.so" ] || fail "plugin $plugin not installed"
done
[ -f "$config" ] || fail "no /etc/agentrt/agentrt.json"

grep -qx "ExecStart=/usr/bin/agentd serve --config /etc/agentrt/agentrt.json" "$unit" ||
  fail "the unit does not start the installed agentd on the installed config"
data_dir=$(sed -n 's/^ *"data_dir": *"\([^"]*\)".*/\1/p' "$config")
[ "$data_dir" = /var/lib/agentrt ] || fail "the config's data_dir is '$data_dir'"
grep -qx "ReadWritePaths=$data_dir" "$unit" || fail "the unit does not let agentd write $data_dir"
grep -qx "StateDirectory=${data_dir#/var/lib/}" "$unit" || fail "the unit's StateDirectory is not $data_dir"
grep -qx "EnvironmentFile=-/etc/agentrt/agentd.env" "$unit" ||
  fail "the unit does not read an optional /etc/agentrt/agentd.env"
mode=$(stat -c %a "$config")
[ "$mode" = 640 ] || fail "/etc/agentrt/agentrt.json is installed with mode $mode, not 640"
# The postinst calls adduser, which a minimal image may lack: the package depends on it.
grep -q '^set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser' "$build/CPackConfig.cmake" ||
  fail "the package does not depend on adduser, which its postinst calls"
for script in postinst prerm postrm; do
  sh -n "$(dirname "$0")/../../packaging/debian/$script" || fail "$script is not valid shell"
done

"$agentd" check-config --config "$config" >"$work/check.out" || fail "check-config: $(cat "$work/check.out")"
grep -qx "plugin_dirs: $root/usr/lib/agentrt/plugins" "$work/check.out" ||
  fail "the installed agentd looks for plugins elsewhere: $(grep plugin_dirs "$work/check.out")"
# systemd kills agentd TimeoutStopSec after SIGTERM: that must outlast its longest
# graceful stop on the shipped config (the grace period and 6 s for requests stuck in
# a plugin, server/http/http_server.cpp) with a minute to spare for a start-up schema
# upgrade holding the signal.
grace=$(sed -n 's/.* shutdown_grace_s=\([0-9]*\).*/\1/p' "$work/check.out")
stop=$(sed -n 's/^TimeoutStopSec=\([0-9]*\)$/\1/p' "$unit")
[ -n "$grace" ] || fail "check-config shows no shutdown_grace_s: $(cat "$work/check.out")"
if [ -z "$stop" ] || [ "$stop" -lt $((grace + 6 + 60)) ]; then
  fail "TimeoutStopSec=${stop:-?} may kill agentd within shutdown_grace_s ($grace) + 66 s"
fi

# The shipped config, but a port and a data dir of the test's own (flags win).
"$agentd" serve --config "$config" --listen 127.0.0.1:0 --data-dir "$work/data" 2>"$work/err" &
pid=$!
wait_for_port "$work/err"
loaded=$(grep -c '"msg":"plugin loaded"' "$work/err")
[ "$loaded" = 7 ] || fail "$loaded plugins loaded, not 7"
! grep '"msg":"plugin loaded"' "$work/err" | grep -v "\"path\":\"$root/usr/lib/agentrt/plugins/" ||
  fail "a plugin was loaded from outside the installed tree"

# One request on its own connection, HTTP/1.0 so that the answer ends with the close.
http() { # method path token [body]
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf '%s %s HTTP/1.0\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n%s' \
    "$1" "$2" "$3" "${#4}" "$4" >&3
  cat <&3
  exec 3<&-
}
token=$(cat "$work/data/admin.token")
answer=$(http POST /chat "$token" \
  '{"model":"echo","messages":[{"role":"user","content":[{"type":"text","text":"installed and well"}]}]}')
case $answer in
  "HTTP/1.0 200"*'"response":"installed and well"'*) ;;
  *) fail "the installed agentd did not answer: $answer" ;;
esac
echo "the installed runtime serves a conversation"
