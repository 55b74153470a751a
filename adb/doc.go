// Package adb talks to adb, the Android Debug Bridge: Client is the host side
// of the smart-socket protocol to an adb server (devices, device tracking,
// transports, jdwp:<pid>, track-jdwp, the apps by name with TrackApps and
// WatchApps, port forwards); package wire is the
// device wire protocol the server speaks to devices; package adbtest is an
// emulated device for tests.
//
// Every call takes a context and honours its deadline.
package adb
