#!/usr/bin/env bash
# Runs the Debian package's maintainer scripts (postinst, prerm, postrm) the way dpkg
# calls them on install, upgrade, reinstall, remove and purge, and checks what each one
# asks of the system: the service user, the config's owner and mode, the secrets
# directory, the unit's enable state, and systemd (daemon-reload; start on install,
# restart on upgrade only if it runs, stop on remove but not on upgrade). Every command
# they run is a stub that records its arguments (PATH holds nothing else, so a command
# the test does not know fails the test rather than touching this machine), and the
# paths they test (whether systemd runs, the config, the secrets directory, the unit's
# mask) are moved under a temporary root, so both
# a machine with systemd and one without are tried wherever the test runs. Also checks
# that the package built from <build-dir> carries the three scripts.
# Usage: maintainer_scripts.sh <build-dir>
# shellcheck disable=SC2016  # the stubs' bodies expand their variables when they run
set -euo pipefail
build=$1
src=$(cd "$(dirname "$0")/../../packaging" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "maintainer scripts: $*" >&2; exit 1; }

# The package: the scripts and the conffiles list go into the .deb's control archive.
cpack_config=$build/CPackConfig.cmake
[ -f "$cpack_config" ] || fail "no $cpack_config"
extra=$(sed -n 's/^set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "\(.*\)")$/\1/p' "$cpack_config")
for name in postinst prerm postrm conffiles; do
  case ";$extra;" in
    *";$src/debian/$name;"*) ;;
    *) fail "the package does not carry debian/$name (CONTROL_EXTRA: $extra)" ;;
  esac
done
grep -q '^set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION "ON")' "$cpack_config" ||
  fail "the maintainer scripts' modes in the package are the checkout's"

for name in postinst prerm postrm; do
  sh -n "$src/debian/$name" || fail "$name is not valid shell"
  if command -v shellcheck >/dev/null; then
    shellcheck -S warning -s sh "$src/debian/$name" >&2 || fail "shellcheck finds fault with $name"
  fi
  # The paths moved below must be the ones the scripts use.
  grep -q '\[ -d /run/systemd/system \]' "$src/debian/$name" ||
    fail "$name does not look for a running systemd"
done
grep -q '^config=/etc/agentrt/agentrt.json$' "$src/debian/postinst" || fail "postinst's config path"
grep -q '^secrets=/etc/agentrt/secrets$' "$src/debian/postinst" || fail "postinst's secrets path"
grep -q '/etc/systemd/system/\$unit$' "$src/debian/postinst" || fail "postinst's mask path"

root=$work/root
calls=$work/calls
mkdir -p "$work/bin" "$work/scripts" "$root/etc/agentrt" "$root/etc/systemd/system"
for name in postinst prerm postrm; do
  sed -e "s|/run/systemd/system|$root/run/systemd/system|g" \
      -e "s|/etc/agentrt/agentrt.json|$root/etc/agentrt/agentrt.json|g" \
      -e "s|/etc/agentrt/secrets|$root/etc/agentrt/secrets|g" \
      -e "s|/etc/systemd/system/|$root/etc/systemd/system/|g" \
      "$src/debian/$name" >"$work/scripts/$name"
done
ln -s "$(command -v readlink)" "$work/bin/readlink"
shell=$(command -v sh)  # dpkg runs them with /bin/sh (dash on Debian)

# Each stub records "name args" and answers as the test's STUB_* variables say.
stub() { # name body
  printf '#!/bin/sh\necho "%s $*" >>"%s"\n%s\n' "$1" "$calls" "$2" >"$work/bin/$1"
  chmod +x "$work/bin/$1"
}
for name in install chown chmod adduser; do stub "$name" 'exit 0'; done
stub getent '[ "$STUB_USER" = yes ]'
stub dpkg-statoverride '[ "$STUB_OVERRIDE" = yes ]'
stub systemctl 'exit "$STUB_STATUS"'
stub deb-systemd-invoke 'exit "$STUB_STATUS"'
# unmask removes the mask only where it is the postrm's own (STUB_OWN_MASK).
stub deb-systemd-helper "
case \$1 in
  --quiet) [ \"\$STUB_WAS_ENABLED\" = yes ]; exit ;;
  unmask) [ \"\$STUB_OWN_MASK\" = yes ] && rm_mask=yes ;;
esac
[ -n \"\${rm_mask:-}\" ] && exec $(command -v rm) -f '$root/etc/systemd/system/agentd.service'
exit \"\$STUB_STATUS\""

# run <systemd: yes|no> <script> <args...>: runs it in a fresh state, its calls in $calls.
run() {
  local systemd=$1 script=$2
  shift 2
  : >"$calls"
  rm -rf "$root/run"
  [ "$systemd" = yes ] && mkdir -p "$root/run/systemd/system"
  env -i PATH="$work/bin" STUB_USER="${STUB_USER:-yes}" STUB_OVERRIDE="${STUB_OVERRIDE:-no}" \
    STUB_WAS_ENABLED="${STUB_WAS_ENABLED:-yes}" STUB_OWN_MASK="${STUB_OWN_MASK:-no}" \
    STUB_STATUS="${STUB_STATUS:-0}" ${DPKG_ROOT:+DPKG_ROOT="$DPKG_ROOT"} \
    "$shell" "$work/scripts/$script" "$@" >"$work/out" 2>&1 ||
    fail "$script $* (systemd $systemd) failed: $(cat "$work/out")"
}
called() { grep -qxF "$1" "$calls" || fail "$case: no '$1' among: $(tr '\n' '|' <"$calls")"; }
not_called() { ! grep -q "^$1" "$calls" || fail "$case: '$1' was called: $(tr '\n' '|' <"$calls")"; }
# before <a> <b>: the first call a comes before the first call b.
before() {
  local a b
  a=$(grep -nxF "$1" "$calls" | head -1 | cut -d: -f1)
  b=$(grep -nxF "$2" "$calls" | head -1 | cut -d: -f1)
  if [ -z "$a" ] || [ -z "$b" ] || [ "$a" -ge "$b" ]; then
    fail "$case: '$1' is not before '$2'"
  fi
}
config=$root/etc/agentrt/agentrt.json
mask=$root/etc/systemd/system/agentd.service
echo '{}' >"$config"

case="first install"
STUB_USER=no run yes postinst configure
called "install -d -m 0700 /var/lib/agentrt"
called "adduser --system --group --home /var/lib/agentrt --no-create-home agentrt"
called "chown agentrt:agentrt /var/lib/agentrt"
called "install -d -m 0750 -o root -g agentrt $root/etc/agentrt/secrets"
before "adduser --system --group --home /var/lib/agentrt --no-create-home agentrt" \
  "install -d -m 0750 -o root -g agentrt $root/etc/agentrt/secrets"
called "chown root:agentrt $config"
called "chmod 0640 $config"
called "deb-systemd-helper enable agentd.service"
called "systemctl --system daemon-reload"
called "deb-systemd-invoke start agentd.service"
before "adduser --system --group --home /var/lib/agentrt --no-create-home agentrt" \
  "deb-systemd-invoke start agentd.service"
before "chmod 0640 $config" "deb-systemd-invoke start agentd.service"
before "systemctl --system daemon-reload" "deb-systemd-invoke start agentd.service"
not_called "deb-systemd-invoke try-restart"

case="upgrade"
run yes postinst configure 0.1.0
not_called adduser
called "chmod 0640 $config"
called "deb-systemd-helper enable agentd.service"
called "systemctl --system daemon-reload"
called "deb-systemd-invoke try-restart agentd.service"
not_called "deb-systemd-invoke start"

case="upgrade where the operator made the secrets directory"
mkdir "$root/etc/agentrt/secrets"
run yes postinst configure 0.1.0
not_called "install -d -m 0750"
rmdir "$root/etc/agentrt/secrets"

case="upgrade of a unit the operator disabled"
STUB_WAS_ENABLED=no run yes postinst configure 0.1.0
not_called "deb-systemd-helper enable"
called "deb-systemd-helper update-state agentd.service"
called "deb-systemd-invoke try-restart agentd.service"

case="reinstall after a remove"
ln -sf /dev/null "$mask"
STUB_OWN_MASK=yes run yes postinst configure 0.1.0
called "deb-systemd-helper unmask agentd.service"
called "deb-systemd-invoke start agentd.service"
not_called "deb-systemd-invoke try-restart"

case="upgrade of a unit the operator masked"
ln -sf /dev/null "$mask"
run yes postinst configure 0.1.0
called "deb-systemd-invoke try-restart agentd.service"
not_called "deb-systemd-invoke start"
rm -f "$mask"

case="first install without a running systemd (chroot, container)"
run no postinst configure
called "deb-systemd-helper enable agentd.service"
not_called systemctl
not_called deb-systemd-invoke

case="first install with dpkg --root"
DPKG_ROOT=$work/elsewhere run yes postinst configure
not_called systemctl
not_called deb-systemd-invoke

case="first install where every systemd call fails"
STUB_STATUS=1 run yes postinst configure
called "deb-systemd-invoke start agentd.service"

case="config mode set by dpkg-statoverride"
STUB_OVERRIDE=yes run yes postinst configure 0.1.0
not_called "chown root:agentrt"
not_called chmod

case="config deleted by the operator"
rm "$config"
run yes postinst configure 0.1.0
not_called "chown root:agentrt"
not_called chmod
echo '{}' >"$config"

case="postinst abort-remove (the remove failed)"
run yes postinst abort-remove
called "deb-systemd-invoke start agentd.service"
not_called adduser

case="prerm remove"
run yes prerm remove
called "deb-systemd-invoke stop agentd.service"
case="prerm remove where stopping fails"
STUB_STATUS=1 run yes prerm remove
case="prerm upgrade"
run yes prerm upgrade 0.2.0
[ ! -s "$calls" ] || fail "$case: $(cat "$calls")"
case="prerm remove without a running systemd"
run no prerm remove
[ ! -s "$calls" ] || fail "$case: $(cat "$calls")"

case="postrm remove"
run yes postrm remove
called "systemctl --system daemon-reload"
called "deb-systemd-helper mask agentd.service"
case="postrm remove without a running systemd"
run no postrm remove
not_called systemctl
called "deb-systemd-helper mask agentd.service"
case="postrm purge"
STUB_STATUS=1 run yes postrm purge
called "deb-systemd-helper purge agentd.service"
called "deb-systemd-helper unmask agentd.service"
not_called systemctl
case="postrm upgrade"
run yes postrm upgrade 0.2.0
[ ! -s "$calls" ] || fail "$case: $(cat "$calls")"

# Without init-system-helpers: systemctl itself, enabling on a first install only.
rm "$work/bin/deb-systemd-helper" "$work/bin/deb-systemd-invoke"
case="first install without init-system-helpers"
run yes postinst configure
called "systemctl enable agentd.service"
called "systemctl start agentd.service"
case="upgrade without init-system-helpers"
run yes postinst configure 0.1.0
not_called "systemctl enable"
called "systemctl try-restart agentd.service"
case="prerm remove without init-system-helpers"
run yes prerm remove
called "systemctl stop agentd.service"
case="first install without init-system-helpers nor a running systemd"
run no postinst configure
not_called systemctl

echo "the maintainer scripts enable, start, restart and stop agentd as dpkg asks"
