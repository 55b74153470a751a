#!/usr/bin/env bash
# Installs what the test suite needs when it is missing: a JDK 17 (java, javac and the
# jdk.jdi module), adb (a real adb server), tshark (Wireshark's dissectors) and
# Eclipse's JDI (libeclipse-jdt-debug-java: the JDI the Eclipse IDE and VS Code run on).
# Everything comes from Debian's packages; nothing is installed when all is present.
set -euo pipefail

missing=()
if ! command -v javac >/dev/null 2>&1 || ! java --list-modules 2>/dev/null | grep -q '^jdk.jdi@'; then
  missing+=(openjdk-17-jdk-headless)
fi
command -v adb >/dev/null 2>&1 || missing+=(adb)
command -v tshark >/dev/null 2>&1 || missing+=(tshark)
[ -f /usr/share/java/eclipse-jdt-debug.jar ] && [ -f /usr/share/java/eclipse-osgi.jar ] || missing+=(libeclipse-jdt-debug-java)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
as_root=()
if [ "$(id -u)" != 0 ]; then as_root=(sudo -E); fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
